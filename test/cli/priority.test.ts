import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args';
import { priorityFromFlags } from '../../src/cli/priority';

describe('the priority flags of baton run and baton chat', () => {
  it('give the run option, or nothing when none is given', () => {
    expect(priorityFromFlags({})).toBeUndefined();
    expect(priorityFromFlags({ priority: '1', 'fairness-key': 'tenant-7', 'fairness-weight': '2.5' })).toEqual({
      priorityKey: 1,
      fairnessKey: 'tenant-7',
      fairnessWeight: 2.5,
    });
  });

  it.each([
    [{ priority: '0' }, '--priority must be an integer >= 1 and <= 100; got "0"'],
    [{ priority: '1e1' }, '--priority must be an integer >= 1 and <= 100; got "1e1"'],
    [
      { priority: '2', 'fairness-weight': 'lots' },
      '--fairness-weight must be a number >= 0.001 and <= 1000; got "lots"',
    ],
    [
      { 'fairness-key': 'k'.repeat(65) },
      `--fairness-key is 65 bytes; Temporal takes fairness keys of at most 64 bytes; got "${'k'.repeat(65)}"`,
    ],
  ])('refuse %j naming the flag and what it takes', (flags, message) => {
    const err = (() => {
      try {
        priorityFromFlags(flags);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(message);
  });
});
