import { describe, expect, it } from 'vitest';
import { defineAgent, delegate, InvalidRunInputError, scripted, Team, TeamValidationError } from '../../src';
import {
  addCost,
  callCost,
  type Cost,
  economicsProblems,
  economicsSpec,
  formatCost,
  priceTableProblems,
  windowOf,
} from '../../src/economics';
import { validateRunInput } from '../../src/common/input';
import { conversationOptionProblems } from '../../src/common/conversationOptions';
import { createWorker } from '../../src/worker';
import { runCommand } from '../../src/cli/run';
import { UsageError } from '../../src/cli/args';
import { formatResult } from '../../src/cli/print';

describe('prices and costs', () => {
  it('prices each kind of token at its price per million, rounded half up to a micro once per call, exactly', () => {
    const mini = { input: 0.15, cachedInput: 0.075, output: 0.6 };
    expect(callCost(mini, { inputTokens: 1200, outputTokens: 300, cachedInputTokens: 1000 })).toEqual({
      currency: 'USD',
      micros: 285,
      unpricedCalls: 0,
    });
    // 3 × 0.15 = 0.45 micro rounds to 0; 4 × 0.15 = 0.6 rounds to 1.
    expect(callCost(mini, { inputTokens: 3, outputTokens: 0 }).micros).toBe(0);
    expect(callCost(mini, { inputTokens: 4, outputTokens: 0 }).micros).toBe(1);
    // Two million output tokens at 600 per million: 1200 of the currency, kept exact.
    expect(callCost({ input: 150, output: 600 }, { inputTokens: 0, outputTokens: 2_000_000 }).micros).toBe(
      1_200_000_000,
    );
    // A millionth per million tokens: 999,999,999 tokens cost 999.999999 micros, 1000 once rounded.
    expect(callCost({ input: 0.000001, output: 0 }, { inputTokens: 999_999_999, outputTokens: 0 }).micros).toBe(1000);
    // More cached tokens than input tokens are held to the input.
    expect(callCost(mini, { inputTokens: 10, outputTokens: 0, cachedInputTokens: 50 }).micros).toBe(
      callCost(mini, { inputTokens: 10, outputTokens: 0, cachedInputTokens: 10 }).micros,
    );
    expect(callCost(undefined, { inputTokens: 10, outputTokens: 5 }, 'EUR')).toEqual({
      currency: 'EUR',
      micros: 0,
      unpricedCalls: 1,
    });
  });

  it('adds costs in one currency, and counts a cost in another as unknown rather than wrong', () => {
    expect(
      addCost({ currency: 'USD', micros: 5, unpricedCalls: 0 }, { currency: 'USD', micros: 7, unpricedCalls: 1 }),
    ).toEqual({ currency: 'USD', micros: 12, unpricedCalls: 1 });
    expect(
      addCost({ currency: 'USD', micros: 5, unpricedCalls: 0 }, { currency: 'EUR', micros: 7, unpricedCalls: 0 }, 3),
    ).toEqual({ currency: 'USD', micros: 5, unpricedCalls: 3 });
    expect(formatCost({ currency: 'USD', micros: 1250, unpricedCalls: 0 })).toBe('0.001250 USD');
    expect(formatCost({ currency: 'USD', micros: 1250, unpricedCalls: 2 })).toBe(
      'unknown (2 calls unpriced; at least 0.001250 USD)',
    );
  });

  it("shows what a chain cost on baton run's usage line, and an unknown cost as unknown", () => {
    const usage = { inputTokens: 20, outputTokens: 10, totalTokens: 30, modelCalls: 2, toolCalls: 0 };
    const result = (cost: Cost) => ({
      output: 'ok',
      finalAgent: 'a',
      handoffChain: [],
      workflowId: 'wf',
      usage: { ...usage, cost },
    });
    expect(formatResult('a', result({ currency: 'USD', micros: 14_435, unpricedCalls: 0 }))).toContain(
      'usage: 2 model calls, 0 tool calls, 30 tokens, cost 0.014435 USD',
    );
    expect(formatResult('a', result({ currency: 'USD', micros: 0, unpricedCalls: 2 }))).toContain(
      '30 tokens, cost unknown (2 calls unpriced)',
    );
  });

  it('refuses bad prices, limits and breakers with the field and what would be valid', () => {
    expect(
      priceTableProblems({
        a: { input: -1, output: 1 },
        b: { input: 0.1234567, output: 1 },
        c: { input: 1, output: 1, currency: 'usd' },
        d: { input: 1, output: 1, per: 'k' },
      }),
    ).toEqual([
      '"prices.a.input" must be a price per million tokens from 0 to 100000 with at most 6 decimals, got -1',
      '"prices.b.input" must be a price per million tokens from 0 to 100000 with at most 6 decimals, got 0.1234567',
      '"prices.c.currency" must be an ISO 4217 code such as "USD", got "usd"',
      '"prices.d" has unknown field(s) "per" (valid: input, cachedInput, output, currency)',
    ]);
    expect(priceTableProblems({ a: { input: 1, output: 1, currency: 'EUR' }, b: { input: 1, output: 1 } })).toEqual([
      '"prices" mixes currencies (EUR, USD): one table prices in one currency, so costs add up',
    ]);
    expect(
      economicsProblems({
        spendLimits: [
          { name: 'a b', limit: 0, window: 'week' as 'day', onExceeded: 'queue' as 'wait' },
          { name: 'x', limit: 1, window: 'day' },
          { name: 'x', limit: 1, window: 'day' },
        ],
        sharedBreakers: { threshold: 0, cooldown: '10 ms', scope: 'world' as 'team' },
      }),
    ).toEqual([
      '"spendLimits[0].name" must be 1 to 64 letters, digits or . _ - (starting with a letter or digit), got "a b"',
      '"spendLimits[0].limit" must be an amount above 0 and up to 1e9 in the prices\' currency, got 0',
      '"spendLimits[0].window" must be "hour", "day" or "month", got "week"',
      '"spendLimits[0].onExceeded" must be "refuse" or "wait", got "queue"',
      '"spendLimits" names "x" twice: each limit needs a name of its own',
      '"sharedBreakers.threshold" must be an integer from 1 to 1000, got 0',
      '"sharedBreakers.cooldown" must be a duration from 1 second up to a year, such as "1 minute", got "10 ms"',
      '"sharedBreakers.scope" must be "task_queue" or "team", got "world"',
    ]);
    const agent = defineAgent({ id: 'a', instructions: 'A', model: scripted([]) });
    expect(() => new Team([agent], { prices: { m: { input: 'cheap' as unknown as number, output: 1 } } })).toThrow(
      TeamValidationError,
    );
    expect(() => new Team([agent], { prices: { m: { input: 1, output: 1 } } })).not.toThrow();
  });

  it('keeps the default table only in its own currency, and prices and limits out of the team version', () => {
    expect(economicsSpec({}).prices?.['gpt-4o-mini']).toEqual({ input: 0.15, cachedInput: 0.075, output: 0.6 });
    expect(economicsSpec({ prices: { m: { input: 1, output: 2, currency: 'EUR' } } }).prices).toEqual({
      m: { input: 1, output: 2, currency: 'EUR' },
    });
    const agent = defineAgent({ id: 'a', instructions: 'A', model: scripted([]) });
    const plain = new Team([agent]);
    const priced = new Team([agent], {
      prices: { m: { input: 9, output: 9 } },
      spendLimits: [{ name: 'daily', limit: 5, window: 'day' }],
      sharedBreakers: true,
    });
    expect(priced.version.hash).toBe(plain.version.hash);
    expect(priced.spec().economics).toMatchObject({
      spendLimits: [{ name: 'daily', limitMicros: 5_000_000, window: 'day', onExceeded: 'refuse' }],
      sharedBreakers: { threshold: 3, cooldownMs: 60_000, scope: 'task_queue' },
    });
    // The worker's prices win over the team's.
    expect(priced.spec({ prices: { m: { input: 1, output: 1 } } }).economics?.prices?.m).toEqual({
      input: 1,
      output: 1,
    });
  });

  it('puts workflow time in UTC windows of an hour, a day, a month', () => {
    const t = Date.parse('2026-12-31T23:59:59.999Z');
    expect(windowOf(t, 'hour')).toEqual({ start: '2026-12-31T23:00:00.000Z', end: '2027-01-01T00:00:00.000Z' });
    expect(windowOf(t, 'day')).toEqual({ start: '2026-12-31T00:00:00.000Z', end: '2027-01-01T00:00:00.000Z' });
    expect(windowOf(t, 'month')).toEqual({ start: '2026-12-01T00:00:00.000Z', end: '2027-01-01T00:00:00.000Z' });
    expect(windowOf(Date.parse('2027-01-01T00:00:00.000Z'), 'day').start).toBe('2027-01-01T00:00:00.000Z');
  });
});

describe('bad economics from outside', () => {
  const agent = defineAgent({ id: 'a', instructions: 'A', model: scripted([]) });

  it('refuses a bad maxCost of a run, a conversation and a delegation, naming what is valid', () => {
    expect(() => validateRunInput({ agent: 'a', input: 'hi', options: { maxCost: -1 } })).toThrow(
      '"maxCost" must be a number >= 0 and <= 1000000000, got -1',
    );
    expect(() => validateRunInput({ agent: 'a', input: 'hi', options: { maxCost: 'cheap' } })).toThrow(
      InvalidRunInputError,
    );
    expect(conversationOptionProblems({ maxCost: Infinity })).toEqual([
      '"conversation.maxCost" must be a number >= 0 and <= 1000000000, got Infinity (a number beyond what JSON numbers hold, such as 1e400)',
    ]);
    expect(() =>
      defineAgent({ id: 'b', instructions: 'B', model: scripted([]), handoffs: [delegate('a', { maxCost: 0 })] }),
    ).toThrow('delegate("a").maxCost must be an amount above 0');
  });

  it("refuses a worker's bad prices, and prices in another currency than the team's, before it connects", async () => {
    const eur = new Team([agent], { prices: { m: { input: 1, output: 1, currency: 'EUR' } } });
    await expect(createWorker({ team: eur, prices: { n: { input: 1, output: 1 } } })).rejects.toThrow(
      '"prices" mixes currencies (EUR, USD)',
    );
    await expect(createWorker({ team: new Team([agent]), prices: { n: { input: 1 } as never } })).rejects.toThrow(
      '"createWorker prices.n.output" must be a price per million tokens',
    );
  });

  it('refuses bad usage of the CLI commands before connecting', async () => {
    const ctx = { out: () => undefined, err: () => undefined, interrupted: new Promise<never>(() => undefined) };
    await expect(runCommand.run(['a', 'hi', '--max-cost', '1e3'], ctx)).rejects.toThrow(
      '--max-cost must be an amount from 0 to 1000000000 with at most six decimals, such as 0.25; got "1e3"',
    );
    await expect(runCommand.run(['a', 'hi', '--max-cost', '0.1234567'], ctx)).rejects.toThrow(UsageError);
  });
});
