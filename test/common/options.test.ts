import { describe, expect, it } from 'vitest';
import { validateRunInput } from '../../src/common/input';
import { DEFAULT_RETRY, resolveRunOptions, RUN_OPTION_KEYS, RUN_OPTIONS, runOptionProblems } from '../../src/common/options';
import { InvalidRunInputError } from '../../src';

describe('run options', () => {
  it('derive their keys and defaults from one table', () => {
    const resolved = resolveRunOptions();
    expect(Object.keys(resolved).sort()).toEqual([...RUN_OPTION_KEYS].sort());
    for (const key of RUN_OPTION_KEYS) expect(resolved[key]).toEqual(RUN_OPTIONS[key].default);
    expect(resolveRunOptions({ retry: { maximumAttempts: 2 } }).retry).toEqual({ ...DEFAULT_RETRY, maximumAttempts: 2 });
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
    [{ modelTimeout: "soon" }, /"modelTimeout" must be a duration from 1 second/],
    [{ toolTimeout: 0 }, /"toolTimeout" must be a duration from 1 second/],
    [{ modelTimeout: 5 }, /"modelTimeout" must be a duration from 1 second up to a year/],
    [{ heartbeatTimeout: -5 }, /"heartbeatTimeout" must be a duration from 1 second/],
    [{ retry: { initialInterval: '10 seconds', maximumInterval: '1 second' } }, /"retry.maximumInterval" \("1 second"\) must not be below "retry.initialInterval" \("10 seconds"\)/],
    [{ retry: { maximumInterval: '100 ms' } }, /must not be below "retry.initialInterval"/],
    [{ retry: { maximumAttempts: 0 } }, /"retry.maximumAttempts" must be an integer >= 1/],
    [{ retry: { backoffCoefficient: 0.5 } }, /"retry.backoffCoefficient" must be a number >= 1/],
    [{ retry: { jitter: true } }, /"retry" has unknown field\(s\) "jitter"/],
    [{ approvals: [{ to: 'b', onTimeout: 'maybe' }] }, /"approvals\[0\].onTimeout" must be "reject" or "approve" or "fail"/],
    [{ approvals: {} }, /"approvals" must be an array/],
    [{ continueAsNewAfterEvents: 1 }, /"continueAsNewAfterEvents" must be an integer >= 20.*or 0/],
    [{ colour: 'red' }, /unknown option "colour" \(valid: maxHandoffs, /],
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

  it.each([null, 'text', [], 42])('refuses %j as a whole', (value) => {
    expect(() => validateRunInput(value)).toThrow(InvalidRunInputError);
  });

  it('checks a carried state completely, so a foreign client cannot make a run spin', () => {
    expect(() => validateRunInput({ ...ok, resume: {} })).toThrow(/"resume.team" is missing/);
    expect(() => validateRunInput({ ...ok, resume: { team: 1 } })).toThrow(/"resume.team" must be an object/);
  });
});
