/**
 * Every walk of JSON from outside on values nested far deeper than any stack: the shape check that
 * refuses them, canonical JSON and sorted JSON (signatures, call hashes, digests), the schema check
 * of tool arguments, redaction and the values it scrubs, the audit's reading of payloads, and the
 * messages that show a bad value. None overflows, each answers as it does for shallow values.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shown } from '../../src/common/check';
import { extractHandoff } from '../../src/common/handoff';
import { InputTooLargeError } from '../../src/common/errors';
import { shapeOver } from '../../src/common/jsonShape';
import { schemaProblems } from '../../src/common/jsonSchema';
import { LIMITS, sizeMessage } from '../../src/common/limits';
import { redactArguments, sensitiveValues } from '../../src/common/sensitive';
import { canonicalJson, sortedJson } from '../../src/common/signatures/canonical';
import { decisionSizes, runInputSizes } from '../../src/common/sizes';
import { runOptionProblems } from '../../src/common/options';
import { fromOutsidePayloads } from '../../src/payloads/read';
import { toolCallKey } from '../../workflows/chain/turn';

/** `[[…[leaf]…]]` or `{"a":{"a":…}}`, `depth` levels, built without recursion. */
function deep(depth: number, kind: 'array' | 'object' = 'object', leaf: unknown = 1): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

const TOO_DEEP = 100_000;

/** canonicalJson as it was written before: recursive, for comparing on values it can hold. */
function recursiveCanonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(recursiveCanonical).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${recursiveCanonical(record[k])}`)
    .join(',')}}`;
}

describe('JSON nested deeper than any stack', () => {
  it('is measured by its shape up to the limits only, and named with them', () => {
    expect(shapeOver('x', deep(LIMITS.jsonDepth))).toEqual([]);
    expect(shapeOver('x', deep(LIMITS.jsonDepth + 1))).toEqual([
      { field: 'x', size: LIMITS.jsonDepth + 1, limit: LIMITS.jsonDepth, unit: 'levels', more: true },
    ]);
    expect(shapeOver('x', deep(TOO_DEEP, 'array'))[0]).toMatchObject({ unit: 'levels' });
    expect(shapeOver('x', Array(LIMITS.jsonEntries).fill(0))).toEqual([]);
    expect(shapeOver('x', Array(LIMITS.jsonEntries + 1).fill(0))[0]).toMatchObject({
      unit: 'entries',
      limit: LIMITS.jsonEntries,
    });
    // A cycle a library caller built is over the depth, not an endless walk.
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(shapeOver('x', cycle)[0]).toMatchObject({ unit: 'levels' });
    expect(sizeMessage(shapeOver('context', deep(TOO_DEEP))[0]!)).toBe(
      '"context" nests arrays and objects more than 64 levels deep; the limit is 64 levels',
    );
    expect(new InputTooLargeError(shapeOver('decision.arguments', Array(20_000).fill(0))).message).toBe(
      'Input too large: "decision.arguments" holds more than 10000 fields and items; the limit is 10000 entries',
    );
  });

  it('is refused in decisions and starts by the shape, before anything measures it as JSON', () => {
    expect(
      decisionSizes({ handoffId: 'h', approver: 'a', decision: 'approve', arguments: { note: deep(TOO_DEEP) } }),
    ).toEqual([{ field: 'decision.arguments', size: 65, limit: 64, unit: 'levels', more: true }]);
    expect(
      decisionSizes({ handoffId: 'h', approver: 'a', decision: 'approve', extra: deep(TOO_DEEP, 'array') })[0],
    ).toMatchObject({ field: 'decision', unit: 'levels' });
    expect(runInputSizes({ agent: 'a', input: 'go', context: deep(TOO_DEEP) })[0]).toMatchObject({
      field: 'context',
      unit: 'levels',
    });
    expect(runInputSizes({ agent: 'a', input: 'go', options: { approvals: deep(TOO_DEEP) } })[0]).toMatchObject({
      field: 'options',
      unit: 'levels',
    });
    expect(runInputSizes({ agent: 'a', input: 'go', unknownField: deep(TOO_DEEP) })[0]).toMatchObject({
      field: 'start input',
      unit: 'levels',
    });
    // A carried state nests deeper than what a caller sends, not without bound.
    expect(runInputSizes({ agent: 'a', input: 'go', resume: deep(LIMITS.jsonDepth * 2) })).toEqual([]);
    expect(runInputSizes({ agent: 'a', input: 'go', resume: deep(TOO_DEEP) })[0]).toMatchObject({
      field: 'resume',
      unit: 'levels',
    });
  });

  it('is written as canonical and sorted JSON without recursion, as the recursive writer wrote shallow values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalJson(v)).toBe(recursiveCanonical(v));
        expect(sortedJson(v)).toBe(recursiveCanonical(v));
      }),
      { numRuns: 200 },
    );
    expect(canonicalJson(deep(TOO_DEEP, 'array'))).toBe('['.repeat(TOO_DEEP) + '1' + ']'.repeat(TOO_DEEP));
    expect(sortedJson(deep(TOO_DEEP)).length).toBe(6 * TOO_DEEP + 1);
    expect(() => canonicalJson([1, Infinity])).toThrow(TypeError);
    expect(sortedJson([Infinity, undefined, { a: undefined }])).toBe('[null,null,{}]');
    // A tool call's key (what makes two calls the same call) for arguments no stack could walk.
    const text = '{"a":'.repeat(TOO_DEEP) + '1' + '}'.repeat(TOO_DEEP);
    expect(toolCallKey({ name: 'pay', arguments: text })).toMatch(/^pay:[0-9a-f]{16}$/);
    expect(toolCallKey({ name: 'pay', arguments: '{"b":1,"a":[2]}' })).toBe(
      toolCallKey({ name: 'pay', arguments: '{ "a": [2], "b": 1 }' }),
    );
  });

  it('in a handoff call is answered as invalid arguments, in runs that hold what the model sends to the depth limit', () => {
    const call = {
      id: 'c1',
      name: 'handoff',
      arguments: `{"to": "b", "message": "go", "update": {"workflowState": ${'{"a":'.repeat(TOO_DEEP)}1${'}'.repeat(TOO_DEEP)}}}`,
    };
    expect(extractHandoff(call, 'a', undefined, LIMITS.jsonDepth)).toBe(
      'Invalid arguments for handoff: "arguments" nests arrays and objects more than 64 levels deep; the limit is 64 levels. Expected {"to": string, "message": string}.',
    );
    expect(
      extractHandoff(
        { ...call, arguments: '{"to": "b", "message": "go", "update": {"workflowState": {"a": 1}}}' },
        'a',
        undefined,
        LIMITS.jsonDepth,
      ),
    ).toMatchObject({ to: 'b', update: { workflowState: { a: 1 } } });
    // Runs from before the limit read the arguments as they did.
    expect(extractHandoff(call, 'a')).toMatchObject({ kind: 'handoff', to: 'b' });
  });

  it('is checked against a recursive schema only so deep, with a problem saying so', () => {
    const schema = {
      $ref: '#/$defs/node',
      $defs: { node: { type: 'object', properties: { a: { $ref: '#/$defs/node' } } } },
    };
    expect(schemaProblems(schema, deep(10, 'object', {}))).toEqual([]);
    const problems = schemaProblems(schema, deep(TOO_DEEP, 'object', {}));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/is nested deeper than 128 levels, more than the parameters are checked to$/);
    expect(schemaProblems({ enum: [1, 2] }, deep(TOO_DEEP, 'array'))[0]).toMatch(
      /^\$ must be one of 1, 2, got an array nested too deep to show$/,
    );
  });

  it('is redacted whole where a path cannot be told apart, and its values scrubbed', () => {
    const spec = { arguments: ['card'] as string[] };
    const lists = JSON.stringify({ card: deep(LIMITS.jsonDepth + 5, 'array', '4111 1111 1111 1111'), other: 1 });
    expect(JSON.parse(redactArguments(lists, spec))).toEqual({ card: '[redacted]', other: 1 });
    const deepText = '{"card":' + '{"a":'.repeat(5000) + '"secret-number-42"' + '}'.repeat(5001);
    expect(sensitiveValues(deepText, spec)).toContain('secret-number-42');
    expect(redactArguments(deepText, spec)).toBe('{"card":"[redacted]"}');
    // What stays is written as it came; what no stack could write is redacted whole.
    expect(redactArguments('{"card":1,"note":' + '['.repeat(20_000) + ']'.repeat(20_000) + '}', spec)).toBe(
      '[redacted]',
    );
  });

  it('shows bad values without throwing, and numbers JSON cannot hold by what they are', () => {
    expect(shown(deep(TOO_DEEP, 'array'))).toBe('an array nested too deep to show');
    expect(shown(deep(TOO_DEEP))).toBe('an object nested too deep to show');
    expect(shown(JSON.parse('1e400'))).toBe('Infinity (a number beyond what JSON numbers hold, such as 1e400)');
    expect(runOptionProblems(JSON.parse('{"maxHandoffs": -1e400}'))).toEqual([
      '"maxHandoffs" must be an integer >= 0 and <= 1000000, got -Infinity (a number beyond what JSON numbers hold, such as 1e400)',
    ]);
    expect(runOptionProblems(JSON.parse('{"__proto__": {"maxHandoffs": 1}, "toString": 2}'))).toEqual([
      expect.stringMatching(/^unknown option "__proto__" \(valid: /),
      expect.stringMatching(/^unknown option "toString" \(valid: /),
    ]);
  });

  it('is read from history as a note of why it is not shown, as is a payload that is not JSON', () => {
    const payload = (data: string) => ({
      payloads: [{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(data) }],
    });
    expect(fromOutsidePayloads(payload('{"a": 1}'))).toEqual({ a: 1 });
    expect(fromOutsidePayloads(payload('['.repeat(5000) + ']'.repeat(5000)))).toEqual({
      unread: '"payload" nests arrays and objects more than 256 levels deep; the limit is 256 levels',
    });
    expect(fromOutsidePayloads(payload('NaN'))).toEqual({ unread: expect.stringMatching(/^not JSON: /) });
    expect(fromOutsidePayloads(undefined)).toBeUndefined();
  });
});
