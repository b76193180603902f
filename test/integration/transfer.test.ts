/** What a handoff carries: context modes, filters, templates, per-target tools, typed input, shared state, isEnabled and onHandoff. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, handoff, scripted, Team } from '../../src';
import type { CallModelInput } from '../../src/workflow';
import { recordingScripted } from '../helpers/models';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { contextModesTeam, firstCallOf, hop, lookup, looked, templatesTeam } from './transfer.fixtures';

const server = useTemporalServer();
describe('context transfer', () => {
  it('gives the target the message only by default, or the full, filtered or last-user conversation', async () => {
    const { calls, providers } = recordingScripted();
    const team = contextModesTeam();
    const result = await withWorker(server.env, team, (baton) => baton.run('triage', 'refund order 42 please'), {
      providers,
    });
    expect(result.handoffChain.map((h) => h.to)).toEqual(['plain', 'full', 'filtered', 'last']);

    expect(firstCallOf(calls, 'plain').messages).toEqual([
      { role: 'system', content: 'Plain.' },
      { role: 'user', content: 'just this' },
    ]);
    const full = firstCallOf(calls, 'full').messages;
    expect(full.slice(0, 2)).toEqual([
      { role: 'system', content: 'Full.' },
      { role: 'system', content: 'Instructions of plain, who handed this work to you:\nPlain.' },
    ]);
    // The source's conversation (its input, its handoff call and that call's answer), then the target's input.
    expect(full.slice(2).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(full.at(-1)).toEqual({ role: 'user', content: 'with everything' });
    const filtered = firstCallOf(calls, 'filtered').messages;
    expect(filtered.some((m) => m.role === 'tool' || (m.role === 'assistant' && m.toolCalls))).toBe(false);
    expect(filtered).toHaveLength(1 + 2 + 1);
    expect(firstCallOf(calls, 'last').messages).toEqual([
      { role: 'system', content: 'Last.' },
      { role: 'user', content: 'filtered' },
      { role: 'user', content: 'last user' },
    ]);
  });

  it('renders the rich input and custom templates, and summarizes the carried conversation with a recorded model call', async () => {
    const { calls, providers } = recordingScripted();
    const team = templatesTeam();
    const { result, audit } = await withWorker(
      server.env,
      team,
      async (baton) => {
        const r = await baton.run('triage', 'refund order 42 please');
        return { result: r, audit: await baton.audit(r.workflowId) };
      },
      { providers },
    );
    expect(result.output).toBe('written');
    const rich = firstCallOf(calls, 'refunds').messages.at(-1)!.content!;
    expect(rich).toContain('You are taking over from triage.');
    expect(rich).toContain('Original request: refund order 42 please');
    expect(rich).toContain('Why you: money moves there');
    expect(rich).toContain('Your task: refund order 42');
    expect(rich).toMatch(/Work done so far:\n- lookup\(\{"orderId":"42"\}\) → order 42: delivered/);
    expect(firstCallOf(calls, 'writer').messages).toEqual([
      { role: 'system', content: 'Write.' },
      { role: 'user', content: 'Summary of the conversation so far:\nsummary of the refund talk' },
      { role: 'user', content: 'From refunds: tell them (request: refund order 42 please)' },
    ]);
    const summaryCall = calls.find((c) => c.purpose === 'summary');
    expect(summaryCall?.agentId).toBe('refunds');
    expect(result.usage.modelCalls).toBe(5);
    const handoffs = audit.events.filter((e) => e.kind === 'handoff');
    expect(handoffs[1]).toMatchObject({
      to: 'writer',
      transfer: { context: 'full', input: 'template', filters: ['summarize'] },
    });
    expect((handoffs[1] as { transfer: { messages: unknown[] } }).transfer.messages).toEqual(
      firstCallOf(calls, 'writer').messages,
    );
  });
});

describe('per-target tools and typed input', () => {
  it('offers transfer_to_<id> tools and runs a three-agent chain through them', async () => {
    const { calls, providers } = recordingScripted();
    const team = new Team(
      [
        defineAgent({
          id: 'a',
          instructions: 'A',
          model: scripted([{ toolCalls: [{ name: 'transfer_to_b', arguments: { message: 'for b' } }] }]),
          handoffs: ['b', 'c'],
        }),
        defineAgent({
          id: 'b',
          instructions: 'B',
          model: scripted([{ toolCalls: [{ name: 'to_c', arguments: { message: 'for c' } }] }]),
          handoffs: [handoff('c', { toolName: 'to_c' })],
        }),
        defineAgent({ id: 'c', instructions: 'C', model: scripted([{ text: 'c answers' }]) }),
      ],
      { handoffTools: 'per_target' },
    );
    const result = await withWorker(server.env, team, (baton) => baton.run('a', 'go'), { providers });
    expect(result.handoffChain.map((h) => `${h.from}>${h.to}:${h.message}`)).toEqual(['a>b:for b', 'b>c:for c']);
    expect(firstCallOf(calls, 'a').tools.map((t) => t.name)).toEqual(['transfer_to_b', 'transfer_to_c']);
    expect(firstCallOf(calls, 'b').tools.map((t) => t.name)).toEqual(['to_c']);
    expect(
      () =>
        new Team(
          [
            defineAgent({
              id: 'x',
              instructions: 'X',
              model: scripted([]),
              tools: [defineTool({ name: 'to_y', description: 'clash', parameters: z.object({}), execute: () => '' })],
              handoffs: [handoff('y', { toolName: 'to_y' })],
            }),
            defineAgent({ id: 'y', instructions: 'Y', model: scripted([]) }),
          ],
          { handoffTools: 'per_target' },
        ),
    ).toThrow(/tool named "to_y", which is also the name of one of its handoff tools/);
  });

  it('sends an invalid typed input back to the model, and keeps the parsed input in the record', async () => {
    const { calls, providers } = recordingScripted();
    const Ticket = z.object({ orderId: z.string(), priority: z.enum(['low', 'high']) });
    const team = new Team([
      defineAgent({
        id: 'triage',
        instructions: 'Route.',
        model: scripted([
          hop('refunds', 'urgent', { input: { orderId: 42, priority: 'now' } }),
          hop('refunds', 'urgent', { input: { orderId: '42', priority: 'high' } }),
        ]),
        handoffs: [
          handoff('refunds', {
            inputType: Ticket,
            input: 'Ticket {{input.orderId}} ({{input.priority}}): {{message}}',
          }),
        ],
      }),
      defineAgent({ id: 'refunds', instructions: 'Refund.', model: scripted([{ text: 'on it' }]) }),
    ]);
    const result = await withWorker(server.env, team, (baton) => baton.run('triage', 'go'), { providers });
    expect(result.handoffChain).toEqual([
      expect.objectContaining({ to: 'refunds', input: { orderId: '42', priority: 'high' } }),
    ]);
    const retry = calls.filter((c) => c.agentId === 'triage')[1]!.messages.at(-1)!;
    expect(retry).toMatchObject({
      role: 'tool',
      content: expect.stringMatching(/^Error: invalid input for the handoff to refunds: orderId: .*string.*priority/),
    });
    expect(firstCallOf(calls, 'refunds').messages.at(-1)).toEqual({
      role: 'user',
      content: 'Ticket 42 (high): urgent',
    });
    expect(firstCallOf(calls, 'triage').tools[0]?.parameters).toMatchObject({
      properties: { input: { anyOf: [{ type: 'object', properties: { orderId: { type: 'string' } } }] } },
    });
  });
});

describe('shared state, isEnabled and onHandoff', () => {
  it('accumulates state updates across three agents; the third reads them', async () => {
    const { calls, providers } = recordingScripted();
    const team = new Team(
      [
        defineAgent({
          id: 'a',
          instructions: 'A',
          model: scripted([
            hop('b', 'b next', { update: { context: { customer: 'ada', tier: 'gold' }, artifacts: ['note-1'] } }),
          ]),
        }),
        defineAgent({
          id: 'b',
          instructions: 'B',
          model: scripted([
            hop('c', 'c next', {
              update: {
                context: { tier: null, orderId: '42' },
                artifacts: ['note-2'],
                workflowState: { step: 'refund' },
              },
            }),
          ]),
        }),
        defineAgent({
          id: 'c',
          instructions: 'C',
          model: scripted([{ toolCalls: [{ name: 'readState', arguments: {} }] }, { text: 'done' }]),
        }),
      ],
      { sharedState: true },
    );
    const { result, chain } = await withWorker(
      server.env,
      team,
      async (baton) => {
        const run = await baton.start('a', 'go');
        const r = await run.result();
        return { result: r, chain: await run.chain() };
      },
      { providers },
    );
    const expected = {
      context: { customer: 'ada', orderId: '42' },
      artifacts: ['note-1', 'note-2'],
      workflowState: { step: 'refund' },
    };
    expect(result.state).toEqual(expected);
    expect(chain.map((h) => h.update)).toEqual([
      { context: { customer: 'ada', tier: 'gold' }, artifacts: ['note-1'] },
      { context: { tier: null, orderId: '42' }, artifacts: ['note-2'], workflowState: { step: 'refund' } },
    ]);
    const read = calls.filter((c) => c.agentId === 'c')[1]!.messages.at(-1)!;
    expect(JSON.parse(read.content!)).toEqual(expected);
    expect(firstCallOf(calls, 'a').tools.map((t) => t.name)).toEqual(['handoff', 'readState']);
  });

  it('hides a target until its rule holds, and lets onHandoff veto a handoff with a reason the model sees', async () => {
    const { calls, providers } = recordingScripted();
    const vetoed: string[] = [];
    const team = new Team([
      defineAgent({
        id: 'triage',
        instructions: 'Route.',
        tools: [lookup],
        model: scripted([hop('refunds', 'too early'), looked, hop('vip', 'try vip'), hop('refunds', 'now')]),
        handoffs: [
          handoff('refunds', { isEnabled: { afterTools: ['lookup'] } }),
          handoff('vip', {
            onHandoff: ({ to, message }) => (vetoed.push(`${to}:${message}`), 'the VIP desk is closed today'),
          }),
        ],
      }),
      defineAgent({ id: 'refunds', instructions: 'Refund.', model: scripted([{ text: 'refunded' }]) }),
      defineAgent({ id: 'vip', instructions: 'VIP.', model: scripted([]) }),
    ]);
    const result = await withWorker(server.env, team, (baton) => baton.run('triage', 'go'), { providers });
    expect(result.handoffChain.map((h) => h.to)).toEqual(['refunds']);
    const triage = calls.filter((c) => c.agentId === 'triage');
    const targets = (c: CallModelInput) =>
      (c.tools.find((t) => t.name === 'handoff')?.parameters as { properties: { to: { enum: string[] } } }).properties
        .to.enum;
    expect(targets(triage[0]!)).toEqual(['vip']);
    expect(triage[1]!.messages.at(-1)!.content).toMatch(/^Error: the handoff to refunds is not available now/);
    expect(targets(triage[2]!)).toEqual(['refunds', 'vip']);
    expect(vetoed).toEqual(['vip:try vip']);
    expect(triage[3]!.messages.at(-1)!.content).toBe(
      'The handoff to vip was refused: the VIP desk is closed today. Continue without it: answer yourself or hand off elsewhere.',
    );
  });
});
