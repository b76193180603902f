import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  BudgetExceededError,
  defineAgent,
  defineTool,
  delegate,
  openai,
  type RunEvent,
  scripted,
  Team,
} from '../../src';
import { type Cost, PriceUnknownError, type PriceTable } from '../../src/economics';
import type { AuditChain, ModelTurnEvent } from '../../src/audit';
import { scriptedAgent as agent } from '../helpers/agents';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();

const PRICES: PriceTable = { small: { input: 1, cachedInput: 0.5, output: 2 }, large: { input: 3, output: 15 } };

/** What a model turn costs by hand: tokens times the price per million, in micros, each kind apart. */
function byHand(
  turn: Pick<ModelTurnEvent, 'model' | 'inputTokens' | 'outputTokens' | 'cachedInputTokens'>,
  prices: PriceTable,
): number {
  const p = prices[turn.model]!;
  const cached = turn.cachedInputTokens ?? 0;
  return (turn.inputTokens! - cached) * p.input + cached * (p.cachedInput ?? p.input) + turn.outputTokens! * p.output;
}

const turnsOf = (audit: AuditChain) =>
  audit.events.filter((e): e is AuditChain['events'][number] & ModelTurnEvent => e.kind === 'model_turn');
const micros = (cost: Cost | undefined) => cost?.micros;

describe('cost in money on a real server', () => {
  it('prices every call at the prices recorded with the snapshot: usage by agent, edge and delegation, the audit, events and metrics agree with a hand computation', async () => {
    const fake = await startOpenAIServer();
    fake.replies.push(reply.text('checked: fine', { usage: { prompt: 1200, completion: 300, cached: 1000 } }));
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look up an order',
      parameters: z.object({}),
      execute: () => 'order 42: paid',
    });
    const team = new Team(
      [
        defineAgent({
          id: 'triage',
          instructions: 'Route.',
          model: scripted({
            model: 'small',
            steps: [
              {
                handoff: { to: 'refunds', message: 'refund order 42' },
                usage: { inputTokens: 1000, outputTokens: 200 },
              },
            ],
          }),
        }),
        defineAgent({
          id: 'refunds',
          instructions: 'Refund.',
          model: scripted({
            model: 'large',
            steps: [
              {
                toolCalls: [
                  { name: 'lookup', arguments: {} },
                  { name: 'delegate', arguments: { to: 'checker', task: 'check order 42' } },
                ],
                usage: { inputTokens: 1500, outputTokens: 100 },
              },
              { text: 'refunded', usage: { inputTokens: 2000, outputTokens: 50 } },
            ],
          }),
          tools: [lookup],
          handoffs: [delegate('checker')],
        }),
        // The default table prices gpt-4o-mini: 0.15 input, 0.075 cached input, 0.6 output per million.
        defineAgent({
          id: 'checker',
          description: 'Checks orders',
          instructions: 'Check.',
          model: openai('gpt-4o-mini', { baseURL: fake.url }),
        }),
      ],
      { prices: PRICES },
    );
    const registry = new Registry();
    try {
      await withWorker(
        server.env,
        team,
        async (baton) => {
          const run = await baton.start('triage', 'I want a refund');
          const events: RunEvent[] = [];
          const following = (async () => {
            for await (const e of run.events()) events.push(e);
          })();
          const result = await run.result();
          await following;
          const audit = await baton.audit(run.workflowId);
          const prices = { ...PRICES, 'gpt-4o-mini': audit.children![0]!.team!.economics!.prices!['gpt-4o-mini']! };
          const turns = [...turnsOf(audit), ...turnsOf(audit.children![0]!)];
          expect(turns.map((t) => [t.agent, t.inputTokens, t.outputTokens, t.cachedInputTokens])).toEqual([
            ['triage', 1000, 200, undefined],
            ['refunds', 1500, 100, undefined],
            ['refunds', 2000, 50, undefined],
            ['checker', 1200, 300, 1000],
          ]);
          // By hand: 1400 + 6000 + 6750 + (200×0.15 + 1000×0.075 + 300×0.6 = 285) micros.
          const hand = turns.map((t) => byHand(t, prices));
          expect(hand).toEqual([1400, 6000, 6750, 285]);
          expect(turns.map((t) => micros(t.cost))).toEqual(hand);
          expect(result.usage.cost).toEqual({ currency: 'USD', micros: 14_435, unpricedCalls: 0 });
          expect(Object.fromEntries(Object.entries(result.usageByAgent!).map(([a, u]) => [a, micros(u.cost)]))).toEqual(
            { triage: 1400, refunds: 12_750, checker: 285 },
          );
          expect(Object.fromEntries(Object.entries(result.usageByEdge!).map(([e, u]) => [e, micros(u.cost)]))).toEqual({
            '→triage': 1400,
            'triage→refunds': 12_750,
          });
          expect(result.usageByDelegation).toEqual({
            'refunds→checker': expect.objectContaining({
              modelCalls: 1,
              cost: { currency: 'USD', micros: 285, unpricedCalls: 0 },
            }),
          });
          expect(audit.result?.usage.cost?.micros).toBe(14_435);
          // The snapshot keeps the prices the chain ran under.
          expect(audit.team?.economics?.prices?.small).toEqual(PRICES.small);
          const answered = events.flatMap((e) =>
            e.kind === 'model_answered'
              ? [micros(e.cost)]
              : e.kind === 'specialist' && e.event.kind === 'model_answered'
                ? [micros(e.event.cost)]
                : [],
          );
          // In the order they happened: the specialist answered between the caller's two calls.
          expect(answered).toEqual([1400, 6000, 285, 6750]);
          const metric = await registry.getSingleMetric('baton_cost_total')!.get();
          const byAgent = Object.fromEntries(
            metric.values.map((v) => [
              `${v.labels.agent}/${v.labels.model}/${v.labels.currency}`,
              Math.round(v.value * 1e6),
            ]),
          );
          expect(byAgent).toEqual({
            'triage/small/USD': 1400,
            'refunds/large/USD': 12_750,
            'checker/gpt-4o-mini/USD': 285,
          });
        },
        { metrics: { registry } },
      );
    } finally {
      await fake.close();
    }
  });

  it('stops a chain with maxCost before the call whose worst case would pass it, or gives a last turn; an unpriced model cannot be held to it', async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look up',
      parameters: z.object({}),
      execute: () => 'found',
    });
    // One micro a token: a call of 3000 + 100 tokens costs 3100; its worst case is its input estimate and 4096 output tokens.
    const step = (text?: string) => ({
      ...(text ? { text } : { toolCalls: [{ name: 'lookup', arguments: {} }] }),
      usage: { inputTokens: 3000, outputTokens: 100 },
    });
    const team = new Team(
      [
        agent('spender', [step(), step(), step('the answer')], {
          model: scripted({ model: 'metered', steps: [step(), step(), step('the answer')], requireAllSteps: false }),
          tools: [lookup],
        }),
        agent('unpriced', [{ text: 'free?' }], {
          model: scripted({ model: 'nobody-prices-me', steps: [{ text: 'free?' }] }),
        }),
      ],
      { prices: { metered: { input: 1, output: 1 } } },
    );
    await withWorker(server.env, team, async (baton) => {
      const stopped = await baton.start('spender', 'go', { maxCost: 0.01 });
      const err = await stopped.result().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BudgetExceededError);
      expect(err).toMatchObject({ budget: 'cost', limit: 10_000, used: 6200, currency: 'USD', agent: 'spender' });
      const needed = (err as BudgetExceededError & { needed: number }).needed;
      expect(6200 + needed).toBeGreaterThan(10_000);
      expect(needed).toBeGreaterThan(4096);
      // Two calls made; the third, which could have passed the budget, never was.
      expect(turnsOf(await baton.audit(stopped.workflowId))).toHaveLength(2);

      const lastTurn = await baton.start('spender', 'go', { maxCost: 0.01, onBudgetExceeded: 'final_answer' });
      const result = await lastTurn.result();
      expect(result.output).toBe('the answer');
      expect(result.budgetExceeded).toMatchObject({ budget: 'cost', used: 6200 });
      expect(result.usage.cost?.micros).toBe(9300);

      const unpriced = await baton.start('unpriced', 'go', { maxCost: 1 });
      await expect(unpriced.result()).rejects.toMatchObject({
        name: PriceUnknownError.name,
        model: 'nobody-prices-me',
        agent: 'unpriced',
      });
      // Without a budget, an unpriced call counts as unknown, never as free.
      const counted = await (await baton.start('unpriced', 'go')).result();
      expect(counted.usage.cost).toEqual({ currency: 'USD', micros: 0, unpricedCalls: 1 });
    });
  });

  it("holds a conversation to its maxCost across messages, and a specialist to its delegation's", async () => {
    const answer = { text: 'noted', usage: { inputTokens: 3000, outputTokens: 100 } };
    const metered = (steps: object[], rules: object[] = []) =>
      scripted({ model: 'metered', steps: steps as never, rules: rules as never, requireAllSteps: false });
    const team = new Team(
      [
        agent('chat', [], { model: metered([], [{ whenIncludes: '', reply: answer }]) }),
        agent('boss', [], {
          model: metered([
            { toolCalls: [{ name: 'delegate', arguments: { to: 'analyst', task: 'analyse' } }] },
            { text: 'done without the analysis' },
          ]),
          handoffs: [delegate('analyst', { maxCost: 0.001 })],
        }),
        agent('analyst', [], { model: metered([{ text: 'analysis' }]) }),
      ],
      { prices: { metered: { input: 1, output: 1 } } },
    );
    await withWorker(server.env, team, async (baton) => {
      // 3100 a message; the fourth message's worst case (about 4200) no longer fits 12000 after 9300.
      const chat = baton.conversation('chat', { conversation: { maxCost: 0.012 } });
      for (let i = 1; i <= 3; i++) expect((await chat.send(`message ${i}`)).usage.cost?.micros).toBe(3100);
      const err = await chat.send('message 4').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BudgetExceededError);
      expect(err).toMatchObject({ budget: 'cost', scope: 'conversation', limit: 12_000, used: 9300 });
      expect((await chat.status()).usage.cost).toEqual({ currency: 'USD', micros: 9300, unpricedCalls: 0 });
      await chat.end();

      // The specialist's worst case (over 4096 micros) does not fit the delegation's 1000: it is stopped before its call.
      const run = await baton.start('boss', 'go');
      const result = await run.result();
      expect(result.output).toBe('done without the analysis');
      const audit = await baton.audit(run.workflowId);
      expect(audit.events.find((e) => e.kind === 'delegation_ended')).toMatchObject({
        to: 'analyst',
        outcome: 'failed',
        error: expect.stringMatching(
          /^The chain ran out of its cost budget while "analyst" was working \(0\.000000 USD spent of 0\.001000 USD/,
        ),
      });
      expect(turnsOf(audit.children![0]!)).toHaveLength(0);
    });
  });
});
