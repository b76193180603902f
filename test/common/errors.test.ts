import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { MaxHandoffsExceededError } from '../../src';
import {
  errorFromFailure,
  HandoffTargetNotFoundError,
  ModelRequestError,
  toApplicationFailure,
  type HandoffRecord,
} from '../../src/workflow';
import { MaxTurnsExceededError } from '../../src/economics';

const record = (from: string, to: string): HandoffRecord => ({
  from,
  to,
  message: 'm',
  timestamp: '2026-01-01T00:00:00.000Z',
  turn: 1,
});

describe('MaxHandoffsExceededError', () => {
  it('names the limit and the path, and keeps limit and chain', () => {
    const chain = [record('a', 'b'), record('b', 'a')];
    const err = new MaxHandoffsExceededError(2, chain, { from: 'a', to: 'b' });
    expect(err.message).toBe('Max handoffs (2) exceeded. Chain: a → b → a → b');
    expect(err.name).toBe('MaxHandoffsExceededError');
    expect(err.limit).toBe(2);
    expect(err.chain).toEqual(chain);
  });
});

describe('HandoffTargetNotFoundError', () => {
  it('names from, to and the available agents', () => {
    const err = new HandoffTargetNotFoundError('researcher', 'unknown', ['writer', 'analyst']);
    expect(err.message).toBe(
      'Agent "researcher" tried to hand off to "unknown", but it is not a registered target. Available: writer, analyst',
    );
    expect(err.name).toBe('HandoffTargetNotFoundError');
  });
});

describe('the workflow boundary', () => {
  it.each([
    new MaxHandoffsExceededError(1, [record('a', 'b')], { from: 'b', to: 'a' }),
    new HandoffTargetNotFoundError('a', 'x', ['b']),
    new MaxTurnsExceededError('a', 3),
    new ModelRequestError('model endpoint answered 401: bad key', 401),
  ])('round-trips $name as a non-retryable ApplicationFailure', (err) => {
    const failure = toApplicationFailure(err);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe(err.name);
    expect(failure.nonRetryable).toBe(true);
    const back = errorFromFailure(failure);
    expect(back).toBeInstanceOf(err.constructor);
    expect(back?.message).toBe(err.message);
    expect(back?.details).toEqual(err.details);
  });

  it('leaves failures of other types alone', () => {
    expect(errorFromFailure(ApplicationFailure.create({ type: 'SomethingElse', message: 'x' }))).toBeUndefined();
  });
});
