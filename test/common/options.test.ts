import { describe, expect, it } from 'vitest';
import { validateConversationInput, validateRunInput } from '../../src/common/input';
import { DEFAULT_RETRY } from '../../src/common/callRunOptions';
import { resolveRunOptions, RUN_OPTION_KEYS, RUN_OPTIONS, runOptionProblems } from '../../src/common/options';
import { InvalidRunInputError } from '../../src';

describe('run options', () => {
  it('derive their keys and defaults from one table', () => {
    const resolved = resolveRunOptions();
    expect(Object.keys(resolved).sort()).toEqual([...RUN_OPTION_KEYS].sort());
    for (const key of RUN_OPTION_KEYS) expect(resolved[key]).toEqual(RUN_OPTIONS[key].default);
    expect(resolveRunOptions({ retry: { maximumAttempts: 2 } }).retry).toEqual({
      ...DEFAULT_RETRY,
      maximumAttempts: 2,
    });
  });

  it('accept every default', () => {
    expect(runOptionProblems(resolveRunOptions())).toEqual([]);
  });

  it.each([
    [{ maxHandoffs: -1 }, /"maxHandoffs" must be an integer >= 0/],
    [{ maxHandoffs: 1e12 }, /"maxHandoffs" must be an integer >= 0 and <= 1000000/],
    [{ maxTurns: 0 }, /"maxTurns" must be an integer >= 1/],
    [{ maxTurns: 1.5 }, /"maxTurns" must be an integer/],
    [{ onInvalidHandoff: 'ask' }, /"onInvalidHandoff" must be "fail" or "retry"/],
    [{ onEmptyOutput: 'ignore' }, /"onEmptyOutput" must be "retry" or "accept"/],
    [{ modelTimeout: 'soon' }, /"modelTimeout" must be a duration from 1 second/],
    [{ toolTimeout: 0 }, /"toolTimeout" must be a duration from 1 second/],
    [{ modelTimeout: 5 }, /"modelTimeout" must be a duration from 1 second up to a year/],
    [{ heartbeatTimeout: -5 }, /"heartbeatTimeout" must be a duration from 1 second/],
    [{ lostWorkerRetries: -1 }, /^"lostWorkerRetries" must be an integer >= 0 and <= 1000, got -1$/],
    [{ lostWorkerRetries: 'many' }, /^"lostWorkerRetries" must be an integer >= 0 and <= 1000, got "many"$/],
    [
      { retry: { initialInterval: '10 seconds', maximumInterval: '1 second' } },
      /"retry.maximumInterval" \("1 second"\) must not be below "retry.initialInterval" \("10 seconds"\)/,
    ],
    [{ retry: { maximumInterval: '100 ms' } }, /must not be below "retry.initialInterval"/],
    [{ retry: { maximumAttempts: 0 } }, /"retry.maximumAttempts" must be an integer >= 1/],
    [{ retry: { backoffCoefficient: 0.5 } }, /"retry.backoffCoefficient" must be a number >= 1/],
    [{ retry: { jitter: true } }, /"retry" has unknown field\(s\) "jitter"/],
    [
      { approvals: [{ to: 'b', onTimeout: 'maybe' }] },
      /"approvals\[0\].onTimeout" must be "reject" or "approve" or "fail"/,
    ],
    [{ approvals: {} }, /"approvals" must be an array/],
    [{ continueAsNewAfterEvents: 1 }, /"continueAsNewAfterEvents" must be an integer >= 20.*or 0/],
    [{ colour: 'red' }, /unknown option "colour" \(valid: maxHandoffs, /],
    [{ loopWindow: -1 }, /^"loopWindow" must be an integer >= 0 and <= 100, got -1$/],
    [{ loopWindow: 2.5 }, /^"loopWindow" must be an integer >= 0 and <= 100, got 2.5$/],
    [{ onLoop: 'warn' }, /^"onLoop" must be "fail" or "refuse", got "warn"$/],
    [{ maxLoopRefusals: 11 }, /^"maxLoopRefusals" must be an integer >= 0 and <= 10, got 11$/],
    [{ breakerThreshold: -1 }, /^"breakerThreshold" must be an integer >= 0 and <= 1000, got -1$/],
    [
      { breakerCooldown: 'soon' },
      /^"breakerCooldown" must be a positive duration up to a year, such as "30 seconds" or a number of milliseconds, got "soon"$/,
    ],
    [{ breakerCooldown: 0 }, /^"breakerCooldown" must be a positive duration up to a year, .* got 0$/],
    [{ maxTokens: -1 }, /^"maxTokens" must be an integer >= 0 and <= 1000000000, got -1$/],
    [{ maxTokens: 1.5 }, /^"maxTokens" must be an integer >= 0 and <= 1000000000, got 1.5$/],
    [{ maxAgents: '3' }, /^"maxAgents" must be an integer >= 0 and <= 1000000, got "3"$/],
    [
      { deadline: 'tomorrow' },
      /^"deadline" must be a duration from the start such as "10 minutes", or an ISO 8601 time such as "2026-01-31T17:00:00Z", got "tomorrow"$/,
    ],
    [{ deadline: '2026-01-31' }, /^"deadline" must be a duration from the start .* got "2026-01-31"$/],
    [{ deadline: 0 }, /^"deadline" must be a duration from the start .* got 0$/],
    [{ budget: 'huge' }, /^"budget" must be "simple" or "medium" or "complex", got "huge"$/],
    [{ budget: 'Simple' }, /^"budget" must be "simple" or "medium" or "complex", got "Simple"$/],
    [{ onBudgetExceeded: 'warn' }, /^"onBudgetExceeded" must be "fail" or "final_answer", got "warn"$/],
    [{ maxGuardrailRetries: 11 }, /^"maxGuardrailRetries" must be an integer >= 0 and <= 10, got 11$/],
    [{ modelActivity: 'inline' }, /^"modelActivity" must be "remote" or "local", got "inline"$/],
    [{ priority: 1 }, /^"priority" must be an object \{priorityKey\?, fairnessKey\?, fairnessWeight\?\}, got 1$/],
    [
      { priority: { priorityKey: 1.5 } },
      /^"priority.priorityKey" must be an integer >= 1 and <= 100, got 1.5 \(1 goes first\)$/,
    ],
    [
      { priority: { fairnessKey: '' } },
      /^"priority.fairnessKey" must be a non-empty string of at most 64 bytes \(a tenant's id, say\), got ""$/,
    ],
    [
      { priority: { fairnessKey: 'é'.repeat(33) } },
      /^"priority.fairnessKey" is 66 bytes; Temporal takes fairness keys of at most 64 bytes$/,
    ],
    [{ priority: { fairnessWeight: 0 } }, /^"priority.fairnessWeight" must be a number >= 0.001 and <= 1000, got 0$/],
    [
      { priority: { key: 1 } },
      /^"priority" has unknown field\(s\) "key" \(valid: priorityKey, fairnessKey, fairnessWeight\)$/,
    ],
  ])('refuse %j naming the problem and what is valid', (options, problem) => {
    const problems = runOptionProblems(options);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });
});

describe('validateRunInput', () => {
  const ok = { agent: 'a', input: 'hi' };

  it('accepts a plain input and names every problem of a bad one', () => {
    expect(validateRunInput(ok)).toEqual(ok);
    const err = (() => {
      try {
        validateRunInput({ agent: 5, options: { maxHandoffs: -1 }, extra: true });
      } catch (e) {
        return e as InvalidRunInputError;
      }
    })();
    expect(err).toBeInstanceOf(InvalidRunInputError);
    expect(err!.problems).toEqual([
      '"agent" must be a non-empty string, got 5',
      '"input" must be a string, got undefined',
      '"maxHandoffs" must be an integer >= 0 and <= 1000000, got -1',
      'unknown field(s) "extra" (valid: agent, input, options, context)',
    ]);
  });

  it('names every bad control option of a plain JSON input, as the workflow refuses it', () => {
    const err = (() => {
      try {
        validateRunInput({
          ...ok,
          options: {
            budget: 'huge',
            deadline: 'tomorrow',
            onLoop: 'warn',
            breakerCooldown: 'soon',
            maxGuardrailRetries: 11,
            modelActivity: 'inline',
          },
        });
      } catch (e) {
        return e as InvalidRunInputError;
      }
    })();
    expect(err).toBeInstanceOf(InvalidRunInputError);
    expect(err!.problems).toEqual([
      '"modelActivity" must be "remote" or "local", got "inline"',
      '"budget" must be "simple" or "medium" or "complex", got "huge"',
      '"deadline" must be a duration from the start such as "10 minutes", or an ISO 8601 time such as "2026-01-31T17:00:00Z", got "tomorrow"',
      '"onLoop" must be "fail" or "refuse", got "warn"',
      '"breakerCooldown" must be a positive duration up to a year, such as "30 seconds" or a number of milliseconds, got "soon"',
      '"maxGuardrailRetries" must be an integer >= 0 and <= 10, got 11',
    ]);
  });

  it.each([null, 'text', [], 42])('refuses %j as a whole', (value) => {
    expect(() => validateRunInput(value)).toThrow(InvalidRunInputError);
  });

  it('checks a carried state completely, so a foreign client cannot make a run spin', () => {
    expect(() => validateRunInput({ ...ok, resume: {} })).toThrow(/"resume.team" is missing/);
    expect(() => validateRunInput({ ...ok, resume: { team: 1 } })).toThrow(/"resume.team" must be an object/);
  });
});

describe('validateConversationInput', () => {
  const problemsOf = (value: unknown): string[] => {
    try {
      validateConversationInput(value);
      return [];
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidRunInputError);
      return (e as InvalidRunInputError).problems;
    }
  };

  it('accepts a plain input and names every problem of a bad one, a first message given as input among them', () => {
    expect(problemsOf({ agent: 'triage', conversation: { idleTimeout: '1 hour' } })).toEqual([]);
    expect(problemsOf(null)).toEqual([
      'input must be an object {"agent": string, "options"?: object, "conversation"?: object}, got null',
    ]);
    expect(
      problemsOf({
        agent: ' ',
        input: 'hi',
        conversation: { compactAfterTokens: -1, idempotencyWindow: 0 },
        options: { onBudgetExceeded: 'warn' },
      }),
    ).toEqual([
      '"agent" must be a non-empty string, got " "',
      '"onBudgetExceeded" must be "fail" or "final_answer", got "warn"',
      '"conversation.compactAfterTokens" must be an integer >= 0 and <= 10000000, got -1',
      '"conversation.idempotencyWindow" must be an integer >= 1 and <= 10000, got 0',
      'unknown field(s) "input" (valid: agent, options, conversation, context); messages, the first one too, are sent as sendMessage updates (with the start, by update-with-start)',
    ]);
    expect(problemsOf({ agent: 'triage', conversation: 'short' })).toEqual([
      '"conversation" must be an object, got "short"',
    ]);
    expect(problemsOf({ agent: 'triage', resume: {} })[0]).toBe(
      'the conversation state baton wrote in "resume" when the conversation continued (continue-as-new, a replay or a migration) is not understood by this worker\'s baton: "resume.chain" is missing. Run workers of a baton version that reads it, then `baton replay <workflowId>` continues the conversation',
    );
  });
});
