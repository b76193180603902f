/** What the Baton client checks before a chain or a conversation is started or a decision reaches a chain. */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { Baton } from '../../src/client/baton';
import { InputTooLargeError, InvalidRunInputError, UserError } from '../../src/common/errors';

// Every check here refuses before the client is used: a client that fails any call proves it.
const unused = new Proxy(
  {},
  {
    get: () => {
      throw new Error('the client was used');
    },
  },
) as Client;
const baton = new Baton({ client: unused });

describe('Baton decisions', () => {
  it('refuse edited arguments that are not a plain object, naming what they are', async () => {
    for (const [args, got] of [
      [[1, 2], 'a list'],
      ['{"amount":1}', 'string "{\\"amount\\":1}"'],
      [null, 'null'],
      [new Map([['amount', 1]]), 'a Map object'],
      [42, 'number 42'],
    ] as const) {
      const err = await baton
        .approve('wf', 'a1', { approver: 'alice', arguments: args as never })
        .catch((e: unknown) => e);
      expect(err, String(got)).toBeInstanceOf(UserError);
      expect((err as Error).message).toBe(`arguments must be a plain object of the tool's arguments, got ${got}`);
    }
  });

  it('refuse edited arguments on a rejection, a blank callHash and a blank approver', async () => {
    await expect(baton.reject('wf', 'a1', { approver: 'alice', arguments: { amount: 1 } })).rejects.toThrow(
      'arguments go with an approval only',
    );
    await expect(baton.approve('wf', 'a1', { approver: 'alice', callHash: '' })).rejects.toThrow(
      'callHash must be the tool.callHash of the waiting call',
    );
    await expect(baton.approve('wf', 'a1', { approver: ' ' })).rejects.toThrow('approver must name who decides');
  });

  it('take the approval id second or in the options, as approvalId or handoffId, and refuse two different ones', async () => {
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => 'sent',
        (e: Error) => e.message,
      );
    await expect(refusal(baton.approve('wf', { approvalId: 'a1', handoffId: 'a2', approver: 'alice' }))).resolves.toBe(
      'two different approval ids given (a1, a2): name one',
    );
    await expect(refusal(baton.reject('wf', 'a1', { approvalId: 'a3', approver: 'alice' }))).resolves.toBe(
      'two different approval ids given (a1, a3): name one',
    );
    await expect(refusal(baton.approve('wf', { approvalId: '', approver: 'alice' }))).resolves.toMatch(
      /^approvalId must be the id of a waiting approval/,
    );
    // The same id twice, or under both names, reaches the chain (here, a client that refuses to be used).
    await expect(
      refusal(baton.approve('wf', 'a1', { approvalId: 'a1', handoffId: 'a1', approver: 'alice' })),
    ).resolves.toBe('the client was used');
  });
});

describe('Baton.start', () => {
  const problemsOf = async (options: Record<string, unknown>) => {
    const err = await baton.start('a', 'go', options as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRunInputError);
    return (err as InvalidRunInputError).problems;
  };

  it('refuses bad control options before anything is sent, naming each and what is valid', async () => {
    expect(
      await problemsOf({
        loopWindow: 101,
        onLoop: 'warn',
        maxLoopRefusals: -1,
        breakerThreshold: 1.5,
        breakerCooldown: 'soon',
      }),
    ).toEqual([
      '"loopWindow" must be an integer >= 0 and <= 100, got 101',
      '"onLoop" must be "fail" or "refuse", got "warn"',
      '"maxLoopRefusals" must be an integer >= 0 and <= 10, got -1',
      '"breakerThreshold" must be an integer >= 0 and <= 1000, got 1.5',
      '"breakerCooldown" must be a positive duration up to a year, such as "30 seconds" or a number of milliseconds, got "soon"',
    ]);
    expect(
      await problemsOf({
        budget: 'huge',
        maxTokens: -1,
        maxAgents: 'two',
        deadline: 'tomorrow',
        onBudgetExceeded: 'warn',
        maxGuardrailRetries: 11,
        modelActivity: 'inline',
      }),
    ).toEqual([
      '"modelActivity" must be "remote" or "local", got "inline"',
      '"budget" must be "simple" or "medium" or "complex", got "huge"',
      '"maxTokens" must be an integer >= 0 and <= 1000000000, got -1',
      '"maxAgents" must be an integer >= 0 and <= 1000000, got "two"',
      '"deadline" must be a duration from the start such as "10 minutes", or an ISO 8601 time such as "2026-01-31T17:00:00Z", got "tomorrow"',
      '"onBudgetExceeded" must be "fail" or "final_answer", got "warn"',
      '"maxGuardrailRetries" must be an integer >= 0 and <= 10, got 11',
    ]);
  });

  it('refuses a startedBy that is not a name of 1 to 200 characters', async () => {
    expect(await problemsOf({ startedBy: '  ' })).toEqual([
      '"startedBy" must be a name of 1 to 200 characters, got "  "',
    ]);
    expect(await problemsOf({ startedBy: 42 })).toEqual(['"startedBy" must be a name of 1 to 200 characters, got 42']);
    expect(await problemsOf({ startedBy: 'x'.repeat(201) })).toEqual([
      '"startedBy" must be a name of 1 to 200 characters, got 201 characters',
    ]);
  });

  it('refuses a deadline given as a time that has passed: the chain would fail at its first step', async () => {
    expect(await problemsOf({ deadline: '2020-01-01T00:00:00Z' })).toEqual([
      expect.stringMatching(
        /^"deadline" 2020-01-01T00:00:00Z has passed \(it is \d{4}-.*Z\): give a later time, or a duration from the start such as "10 minutes"$/,
      ),
    ]);
  });
});

describe('baton.conversation', () => {
  const refusal = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return e as Error;
    }
    throw new Error('not refused');
  };

  it('refuses bad conversation and run options when made, naming each and what is valid', () => {
    const err = refusal(() =>
      baton.conversation('triage', {
        conversation: { idleTimeout: 'soon', keepRecentTurns: 0, idle: '1 hour' } as never,
        options: { budget: 'huge' } as never,
      }),
    );
    expect(err).toBeInstanceOf(InvalidRunInputError);
    expect((err as InvalidRunInputError).problems).toEqual([
      '"budget" must be "simple" or "medium" or "complex", got "huge"',
      'unknown conversation option "idle" (valid: idleTimeout, compactAfterTokens, keepRecentTurns, idempotencyWindow, midTurn, maxCost)',
      '"conversation.idleTimeout" must be a duration from 1 second up to a year, such as "30 seconds" or a number of milliseconds, got "soon"',
      '"conversation.keepRecentTurns" must be an integer >= 1 and <= 1000, got 0',
    ]);
    expect(refusal(() => baton.conversation(' '))).toBeInstanceOf(InvalidRunInputError);
    expect(refusal(() => baton.conversation(' ')).message).toBe(
      'Invalid run input: "agent" must be a non-empty string, got " "',
    );
  });

  it('refuses a blank id rather than starting a conversation without one', () => {
    const err = refusal(() => baton.conversation('triage', { id: '' }));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toBe('id must name the conversation (its workflow id), got ""; leave it out for a new one');
  });

  it('refuses an empty message and a bad idempotency key before anything is sent', async () => {
    const chat = baton.conversation('triage', { id: 'c-1' });
    for (const [message, key, problem] of [
      ['', undefined, '"sendMessage.message" must be a non-empty string, got ""'],
      ['  \n', undefined, '"sendMessage.message" must be a non-empty string, got "  \\n"'],
      ['hi', '', '"sendMessage.idempotencyKey" must be a non-empty string, got ""'],
    ] as const) {
      const err = await chat.send(message, key === undefined ? {} : { idempotencyKey: key }).catch((e: unknown) => e);
      expect(err, problem).toBeInstanceOf(InvalidRunInputError);
      expect((err as InvalidRunInputError).problems).toEqual([problem]);
    }
    const long = await chat.send('hi', { idempotencyKey: 'k'.repeat(257) }).catch((e: unknown) => e);
    expect(long).toBeInstanceOf(InputTooLargeError);
    expect(long).toMatchObject({
      field: 'sendMessage.idempotencyKey',
      size: 257,
      limit: 256,
      unit: 'characters',
      message: 'Input too large: "sendMessage.idempotencyKey" is 257 characters; the limit is 256',
    });
  });
});
