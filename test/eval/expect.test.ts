/** A case's expectations weighed against a chain: each says whether it held and why. */
import { describe, expect, it } from 'vitest';
import { weighExpectations } from '../../src/eval/expect';
import type { ChainSummary } from '../../src/common/eval/types';

const chain = (
  output: unknown,
  status: ChainSummary['outcome']['status'] = 'completed',
): { summary: ChainSummary; output: unknown } => ({
  summary: {
    route: ['triage', 'refunds'],
    outcome: { status },
    finalAgent: 'refunds',
    usage: { modelCalls: 1, inputTokens: 1, outputTokens: 1 },
  },
  output,
});

describe('expectations', () => {
  it('weigh the outcome, route, final agent, and the answer by regex and JSON Schema', () => {
    const results = weighExpectations(
      {
        route: ['triage', 'sales'],
        finalAgent: 'refunds',
        output: {
          regex: 'refund',
          flags: 'i',
          jsonSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
        },
      },
      chain('{"amount": "lots"}'),
    );
    expect(results).toEqual([
      { name: 'outcome', ok: true, detail: 'completed' },
      { name: 'route', ok: false, detail: 'triage → refunds (expected triage → sales)' },
      { name: 'finalAgent', ok: true, detail: 'refunds' },
      { name: 'output.regex', ok: false, detail: '"{\\"amount\\": \\"lots\\"}" does not match /refund/i' },
      { name: 'output.jsonSchema', ok: false, detail: '$.amount must be number, got string "lots"' },
    ]);
    expect(weighExpectations({ output: { jsonSchema: { type: 'object' } } }, chain('not json')).at(-1)).toEqual({
      name: 'output.jsonSchema',
      ok: false,
      detail: 'the answer is not JSON',
    });
    expect(
      weighExpectations({ output: { jsonSchema: { type: 'object', required: ['amount'] } } }, chain({ amount: 5 })).at(
        -1,
      ),
    ).toMatchObject({ ok: true });
  });

  it('expect a failure when told, and pass a chain marked bad only when it differs', () => {
    expect(weighExpectations({ outcome: 'failed' }, chain(undefined, 'failed'))).toEqual([
      { name: 'outcome', ok: true, detail: 'failed' },
    ]);
    expect(weighExpectations(undefined, chain(undefined, 'failed'))[0]).toEqual({
      name: 'outcome',
      ok: false,
      detail: 'failed (expected completed)',
    });
    const bad = { avoid: { route: ['triage', 'refunds'], output: 'no' } };
    expect(weighExpectations(bad, chain('no')).at(-1)).toMatchObject({ name: 'avoid', ok: false });
    expect(weighExpectations(bad, chain('yes')).at(-1)).toMatchObject({ name: 'avoid', ok: true });
  });
});
