/** The limits module: sizes counted as Temporal counts them, and refusals that never repeat a value. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputTooLargeError } from '../../src/common/errors';
import { boundedProblems, clipText, LIMITS, utf8Bytes } from '../../src/common/limits';
import { decisionSizes, messageSizes, reportSizes, runInputSizes } from '../../src/common/sizes';

/** Any UTF-16 code unit, lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

describe('limits', () => {
  it('count UTF-8 bytes as Buffer does, surrogate pairs and lone surrogates included', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: codeUnit, maxLength: 50 }),
        fc.string({ unit: 'grapheme-composite', maxLength: 50 }),
        (a, b) => utf8Bytes(a + b) === Buffer.byteLength(a + b),
      ),
      { numRuns: 50 },
    );
    for (const text of ['é😀\ud800', '\ud800é', '\udc00\ud800', 'a\ud83d\ude00b'])
      expect(utf8Bytes(text), JSON.stringify(text)).toBe(Buffer.byteLength(text));
  });

  it('clip text to the limit, saying how much was left out', () => {
    const clipped = clipText('x'.repeat(5000), LIMITS.recordedReasonChars);
    expect(clipped.length).toBeLessThanOrEqual(LIMITS.recordedReasonChars);
    expect(clipped).toMatch(/… \(\d+ more characters\)$/);
    expect(clipText('short', 10)).toBe('short');
    const problems = boundedProblems(Array.from({ length: 50 }, () => 'p'.repeat(3000)));
    expect(problems.join('').length).toBeLessThanOrEqual(LIMITS.recordedReasonChars * 4);
  });

  it('name each field over its limit with its size, and never its value', () => {
    expect(
      decisionSizes({
        handoffId: 'h'.repeat(129),
        approver: 'a'.repeat(257),
        comment: 'c'.repeat(4097),
        decision: 'approve',
      }),
    ).toEqual([
      { field: 'decision.handoffId', size: 129, limit: 128, unit: 'characters' },
      { field: 'decision.approver', size: 257, limit: 256, unit: 'characters' },
      { field: 'decision.comment', size: 4097, limit: 4096, unit: 'characters' },
    ]);
    expect(
      decisionSizes({
        handoffId: 'h',
        approver: 'a',
        decision: 'approve',
        arguments: { blob: 'x'.repeat(LIMITS.argumentsBytes) },
      })[0],
    ).toMatchObject({ field: 'decision.arguments', unit: 'bytes' });
    expect(
      decisionSizes({ handoffId: 'h', approver: 'a', decision: 'approve', ['k'.repeat(100_000)]: 1 })[0],
    ).toMatchObject({ field: 'decision', unit: 'bytes' });
    expect(messageSizes({ message: 'é'.repeat(LIMITS.messageBytes / 2 + 1) })).toEqual([
      { field: 'sendMessage.message', size: LIMITS.messageBytes + 2, limit: LIMITS.messageBytes, unit: 'bytes' },
    ]);
    expect(runInputSizes({ agent: 'a'.repeat(129), input: 'hi' })).toEqual([
      { field: 'agent', size: 129, limit: 128, unit: 'characters' },
    ]);
    expect(reportSizes({ workflowId: 'w', token: 't', pending: Array(1001).fill({}) })).toEqual([
      { field: 'report.pending', size: 1001, limit: 1000, unit: 'entries' },
    ]);
    const err = new InputTooLargeError(
      decisionSizes({ handoffId: 'h', approver: 'secret'.repeat(1000), decision: 'approve' }),
    );
    expect(err).toMatchObject({
      field: 'decision.approver',
      size: 6000,
      limit: 256,
      unit: 'characters',
      message: 'Input too large: "decision.approver" is 6000 characters; the limit is 256',
    });
    expect(err.message).not.toContain('secret');
  });
});
