/**
 * fast-check arbitraries of the JSON bodies an OpenAPI schema describes, for the HTTP fuzzer
 * (httpFuzzRequests.ts): values as a client that reads the document would send them, then
 * mutated — a field dropped, added or of the wrong type, too large for the service or for
 * Temporal — or not JSON at all.
 */
import fc from 'fast-check';

/** The parts of an OpenAPI 3.1 schema the fuzzer reads. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  example?: unknown;
}

/** The document's named schemas, which a `$ref` points into. */
interface SchemaDoc {
  components?: { schemas?: Record<string, Schema> };
}

/** The names a value may be taken from where its field names them: agents the workers serve, workflow ids. */
interface KnownNames {
  agents: string[];
  ids: string[];
}

/** One of the arbitraries, each `[weight, arbitrary]` picked in proportion to its weight. */
export const oneOf = <T>(...weighted: [number, fc.Arbitrary<T>][]) =>
  fc.oneof(...weighted.map(([weight, arbitrary]) => ({ weight, arbitrary })));
/** Short strings: plain, of graphemes, or of raw UTF-16 code units. */
export const text = oneOf<string>(
  [4, fc.string({ maxLength: 24 })],
  [2, fc.string({ unit: 'grapheme', maxLength: 16 })],
  [1, fc.string({ unit: 'binary', minLength: 1, maxLength: 8 })],
);
/** Strings over the service's body limit and over Temporal's payload limit as the fuzzed service sets them (64 KiB, 16 KiB), some of multi-byte characters. */
const large = fc
  .tuple(fc.constantFrom('x', 'é', '🙂', '"'), fc.constantFrom(5_000, 20_000, 70_000))
  .map(([ch, n]) => ch.repeat(n));

function resolve(doc: SchemaDoc, schema: Schema): Schema {
  return schema.$ref ? resolve(doc, doc.components?.schemas?.[schema.$ref.split('/').pop()!] ?? {}) : schema;
}

/** Values of `schema` as a client that reads the document would send, with the pools' ids and agents where the field names them. */
function valueOf(doc: SchemaDoc, pools: KnownNames, raw: Schema, name = '', depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => valueOf(doc, pools, s, name, depth)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string') {
    const known = name === 'agent' ? pools.agents : name === 'workflowId' ? pools.ids : [];
    const [minLength, maxLength] = [schema.minLength ?? 0, Math.min(schema.maxLength ?? 24, 24)];
    const own = oneOf<string>(
      [4, fc.string({ minLength, maxLength })],
      [2, fc.string({ unit: 'grapheme', minLength, maxLength })],
      [1, fc.string({ unit: 'binary', minLength, maxLength })],
    );
    return oneOf<string>(
      [6, known.length > 0 ? fc.constantFrom(...known) : own],
      [3, own],
      [1, text],
      [1, fc.constant(typeof schema.example === 'string' ? schema.example : 'hello')],
    );
  }
  if (type === 'integer') return fc.integer({ min: schema.minimum ?? -5, max: schema.maximum ?? 50 });
  if (type === 'number') return fc.double({ noNaN: true, min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 });
  if (type === 'boolean') return fc.boolean();
  if (type === 'array') return fc.array(valueOf(doc, pools, schema.items ?? {}, name, depth + 1), { maxLength: 3 });
  if (type === 'object' && depth < 3) {
    const props = Object.entries(schema.properties ?? {});
    const required = new Set(schema.required ?? []);
    const fields = Object.fromEntries(
      props.map(([k, s]) => [
        k,
        required.has(k)
          ? valueOf(doc, pools, s, k, depth + 1)
          : fc.option(valueOf(doc, pools, s, k, depth + 1), { nil: undefined }),
      ]),
    );
    // An open object (run options, context): empty, the document's example, or anything.
    const open = oneOf<Record<string, unknown>>(
      [
        3,
        fc.constant(
          schema.example && typeof schema.example === 'object' ? (schema.example as Record<string, unknown>) : {},
        ),
      ],
      [2, fc.constant({})],
      [1, fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })],
    );
    const extra = schema.additionalProperties === false || props.length > 0 ? fc.constant({}) : open;
    return fc.tuple(fc.record(fields), extra).map(([f, e]) => JSON.parse(JSON.stringify({ ...e, ...f })) as unknown);
  }
  return fc.jsonValue({ maxDepth: 2 });
}

/** A body from `schema`: valid, mutated, too large, or not JSON. */
export function bodyOf(doc: SchemaDoc, pools: KnownNames, schema: Schema): fc.Arbitrary<string> {
  const valid = valueOf(doc, pools, schema);
  const asObject = (v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  const mutated = fc
    .tuple(valid, fc.nat(), fc.jsonValue({ maxDepth: 2 }), fc.string({ maxLength: 10 }), large)
    .chain(([v, i, junk, key, big]) => {
      const o = asObject(v);
      const keys = Object.keys(o);
      const pick = keys[i % Math.max(1, keys.length)];
      return fc.constantFrom<Record<string, unknown>>(
        Object.fromEntries(Object.entries(o).filter(([k]) => k !== pick)),
        { ...o, [key || 'extra']: junk },
        pick ? { ...o, [pick]: junk } : { junk },
        pick ? { ...o, [pick]: big } : { big },
        { ...o, context: { big }, arguments: { big } },
      );
    });
  return oneOf<string>(
    [10, valid.map((v) => JSON.stringify(v))],
    [4, mutated.map((v) => JSON.stringify(v))],
    [1, fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v))],
    [
      1,
      oneOf<string>(
        [1, fc.constantFrom('', '{', '{"agent":', 'null', '[]', 'undefined', '\u0000', '{"a":1}{"b":2}')],
        [1, fc.string({ maxLength: 40 })],
      ),
    ],
  );
}
