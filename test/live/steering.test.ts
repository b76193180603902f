import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/common/limits';
import { Steering } from '../../workflows/live/steering';

/** The failure type a validator threw, and its message. */
function refusal(fn: () => void): { type?: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApplicationFailure) return { type: err.type ?? undefined, message: err.message };
    throw err;
  }
  throw new Error('not refused');
}

describe("the steering desk (every client: the steer update's validator)", () => {
  const effects = {
    now: () => Date.parse('2026-01-01T00:00:00Z'),
    newId: (() => {
      let n = 0;
      return () => `s${++n}`;
    })(),
  };

  it('refuses malformed and oversized messages, a chain that takes no steering, and more than the waiting limit, naming why', () => {
    let accepting: string | undefined = 'it started before chains took steering messages';
    const desk = new Steering('wf-1', effects, () => accepting);
    expect(refusal(() => desk.validate({ text: 'hi', by: 'bob' }))).toMatchObject({
      type: 'SteeringRefusedError',
      message: expect.stringContaining('it started before chains took steering messages'),
    });
    accepting = undefined;
    expect(refusal(() => desk.validate({ text: '', by: 'bob' }))).toMatchObject({ type: 'InvalidRunInputError' });
    expect(refusal(() => desk.validate({ text: 'hi', by: ' ' }))).toMatchObject({
      type: 'InvalidRunInputError',
      message: expect.stringContaining('"steer.by" must name who sends the message'),
    });
    expect(refusal(() => desk.validate({ text: 'hi', by: 'bob', interrupt: 'yes' }))).toMatchObject({
      type: 'InvalidRunInputError',
    });
    expect(refusal(() => desk.validate({ text: 'x'.repeat(LIMITS.messageBytes + 1), by: 'bob' }))).toMatchObject({
      type: 'InputTooLargeError',
    });
    expect(refusal(() => desk.validate({ text: 'hi', by: 'b'.repeat(LIMITS.approverChars + 1) }))).toMatchObject({
      type: 'InputTooLargeError',
    });
    expect(refusal(() => desk.validate('hi'))).toMatchObject({ type: 'InvalidRunInputError' });
    for (let i = 0; i < LIMITS.waitingSteers; i++) {
      desk.validate({ text: `m${i}`, by: 'bob' });
      expect(desk.receive({ text: `m${i}`, by: 'bob' })).toEqual({
        steerId: `s${i + 1}`,
        interrupted: false,
        waiting: i + 1,
      });
    }
    expect(refusal(() => desk.validate({ text: 'one more', by: 'bob' }))).toMatchObject({
      type: 'SteeringRefusedError',
      message: expect.stringContaining(`${LIMITS.waitingSteers} steering messages already wait`),
    });
    expect(desk.take().map((m) => m.text)).toEqual(Array.from({ length: LIMITS.waitingSteers }, (_, i) => `m${i}`));
    expect(() => desk.validate({ text: 'room again', by: 'bob' })).not.toThrow();
  });
});
