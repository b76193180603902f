/**
 * How a chain of handoffs fails or refuses on a real server and a real worker: the handoff and
 * turn budgets, unknown targets and their retries, bad options and agents, and the scripted
 * model's own errors; and how the audit tells a handoff refused for want of an approval or for an
 * invalid target.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, InvalidRunInputError, MaxHandoffsExceededError, scripted, Team } from '../../src';
import {
  AgentNotFoundError,
  BatonStatusAttribute,
  HandoffTargetNotFoundError,
  UnconsumedScriptStepsError,
  UnexpectedModelCallError,
  type HandoffRecord,
} from '../../src/workflow';
import { MaxTurnsExceededError } from '../../src/economics';
import { formatTimeline, toMermaid } from '../../src/audit/format';
import { expiredHandoffAnswer } from '../../src/common/answers';
import { recordingScripted } from '../helpers/models';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { scriptedAgent as agent } from '../helpers/agents';
import { byKind, ghostTeam, unapprovedTeam } from './audit.fixtures';

const server = useTemporalServer();

const path = (chain: HandoffRecord[]) => chain.map((h) => `${h.from}>${h.to}`);

describe("handoffRun's failures and refusals on a real server", () => {
  it('fails with MaxHandoffsExceededError carrying limit and chain when agents ping-pong', async () => {
    const pingPong = Array.from({ length: 5 }, () => ({ handoff: { to: 'b', message: 'your turn' } }));
    const team = new Team([
      agent('a', pingPong),
      agent(
        'b',
        pingPong.map(() => ({ handoff: { to: 'a', message: 'yours' } })),
      ),
    ]);
    const err = await withWorker(server.env, team, (baton) =>
      baton.run('a', 'go', { maxHandoffs: 3, loopWindow: 0 }).catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(MaxHandoffsExceededError);
    const e = err as MaxHandoffsExceededError;
    expect(e.limit).toBe(3);
    expect(path(e.chain)).toEqual(['a>b', 'b>a', 'a>b']);
    expect(e.message).toBe('Max handoffs (3) exceeded. Chain: a → b → a → b → a');
    expect(e.cause).toBeInstanceOf(WorkflowFailedError);
  });

  it('refuses any handoff with maxHandoffs 0', async () => {
    const team = new Team([agent('a', [{ handoff: { to: 'b', message: 'x' } }]), agent('b', [])]);
    const err = await withWorker(server.env, team, (baton) =>
      baton.run('a', 'go', { maxHandoffs: 0 }).catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(MaxHandoffsExceededError);
    expect((err as MaxHandoffsExceededError).chain).toEqual([]);
  });

  it('fails with HandoffTargetNotFoundError when the model names an unregistered agent', async () => {
    const team = new Team([
      agent('researcher', [{ handoff: { to: 'ghost', message: 'x' } }]),
      agent('writer', []),
      agent('analyst', []),
    ]);
    const err = await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('researcher', 'go');
      const e = await run.result().catch((x: unknown) => x);
      expect((await run.handle.describe()).typedSearchAttributes.get(BatonStatusAttribute)).toBe('failed');
      return e;
    });
    expect(err).toBeInstanceOf(HandoffTargetNotFoundError);
    expect(err).toMatchObject({ from: 'researcher', to: 'ghost', available: ['writer', 'analyst'] });
  });

  it("with onInvalidHandoff 'retry', tells the model the valid targets and lets it try again", async () => {
    const { calls, providers } = recordingScripted();
    const team = new Team([
      agent('researcher', [{ handoff: { to: 'ghost', message: 'x' } }, { handoff: { to: 'writer', message: 'ok' } }]),
      agent('writer', [{ text: 'written' }]),
    ]);
    const result = await withWorker(
      server.env,
      team,
      (baton) => baton.run('researcher', 'go', { onInvalidHandoff: 'retry' }),
      {
        providers,
      },
    );
    expect(result.output).toBe('written');
    expect(path(result.handoffChain)).toEqual(['researcher>writer']);
    const toolAnswer = calls[1]?.messages.at(-1);
    expect(toolAnswer).toMatchObject({ role: 'tool', toolCallId: 'call_researcher_1_1' });
    expect(toolAnswer?.content).toMatch(/"ghost".*Available: writer.*one of: writer/);
  });

  it("with onInvalidHandoff 'retry', still fails once the retries are used up", async () => {
    const ghost = { handoff: { to: 'ghost', message: 'x' } };
    const team = new Team([agent('a', [ghost, ghost, ghost]), agent('b', [])]);
    const err = await withWorker(server.env, team, (baton) =>
      baton.run('a', 'go', { onInvalidHandoff: 'retry', maxInvalidHandoffRetries: 2 }).catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(HandoffTargetNotFoundError);
  });

  it('fails with MaxTurnsExceededError when an agent never answers', async () => {
    const echo = defineTool({ name: 'echo', description: 'Echo', parameters: z.object({}), execute: () => 'again' });
    const team = new Team([
      agent('a', [], {
        tools: [echo],
        model: scripted({ rules: [{ whenIncludes: '', reply: { toolCalls: [{ name: 'echo', arguments: {} }] } }] }),
      }),
    ]);
    const err = await withWorker(server.env, team, (baton) =>
      baton.run('a', 'go', { maxTurns: 3 }).catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(MaxTurnsExceededError);
    expect(err).toMatchObject({ agent: 'a', limit: 3 });
  });

  it('rejects bad options before starting, and an unknown start agent in the run', async () => {
    const team = new Team([agent('a', [{ text: 'x' }])]);
    await withWorker(server.env, team, async (baton) => {
      await expect(baton.start('a', 'go', { maxHandoffs: 1.5 })).rejects.toThrow(InvalidRunInputError);
      const err = await baton.run('nobody', 'go').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AgentNotFoundError);
      expect(err).toMatchObject({ agent: 'nobody', available: ['a'] });
    });
  });

  it('has its own errors for an unexpected model call and for unconsumed steps', async () => {
    const unexpected = new Team([agent('a', [])]);
    const e1 = await withWorker(server.env, unexpected, (baton) =>
      baton.run('a', 'hello there').catch((e: unknown) => e),
    );
    expect(e1).toBeInstanceOf(UnexpectedModelCallError);
    expect(e1).toMatchObject({ agent: 'a', callIndex: 0, lastMessage: 'hello there' });

    const leftover = new Team([agent('a', [{ text: 'one' }, { text: 'never used' }])]);
    const e2 = await withWorker(server.env, leftover, (baton) => baton.run('a', 'go').catch((e: unknown) => e));
    expect(e2).toBeInstanceOf(UnconsumedScriptStepsError);
    expect(e2).toMatchObject({ unconsumed: { a: 1 } });
  });
});

describe('audit of refused handoffs', () => {
  it('a handoff nobody approved in time is refused, and the agent goes on', async () => {
    const audit = await withWorker(server.env, unapprovedTeam(), async (baton) => {
      const run = await baton.start('a', 'go');
      await run.result();
      return baton.audit(run.workflowId);
    });
    expect(audit.handoffs).toEqual([]);
    expect(byKind(audit, 'handoff_requested')).toEqual([
      expect.objectContaining({ to: 'b', outcome: 'timed_out', answer: expiredHandoffAnswer('b') }),
    ]);
    expect(byKind(audit, 'approval_decided')).toEqual([
      expect.objectContaining({ outcome: 'timed_out', onTimeout: 'reject' }),
    ]);
    expect(formatTimeline(audit)).toMatch(
      /a +asks to hand off to b: "over" → waits for approval \((\S+)\)\n.*approval +asked for a → b \(\1\).*\n.*approval +nobody decided in time \(\1\) → rejected/,
    );
    expect(toMermaid(audit)).toBe(
      ['flowchart LR', '  input([input]) --> a', '  a -.->|"not approved in time"| b', '  a --> answer([answer])'].join(
        '\n',
      ),
    );
  });

  it('a handoff to an invalid target that fails the run says so, with the failure', async () => {
    const audit = await withWorker(server.env, ghostTeam(), async (baton) => {
      const run = await baton.start('a', 'go');
      await run.result().catch(() => undefined);
      return baton.audit(run.workflowId);
    });
    expect(audit).toMatchObject({ status: 'failed', failure: { type: 'HandoffTargetNotFoundError' } });
    expect(byKind(audit, 'handoff_requested')).toEqual([
      expect.objectContaining({ to: 'ghost', outcome: 'invalid_target', reason: audit.failure!.message }),
    ]);
    expect(byKind(audit, 'handoff_requested')[0]!.answer).toBeUndefined();
    expect(toMermaid(audit)).toContain('a -.->|"invalid target"| ghost');
    expect(toMermaid(audit)).toContain('a --> failed[["HandoffTargetNotFoundError"]]');
  });
});
