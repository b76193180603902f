/**
 * fast-check arbitraries of HTTP requests to baton's service, generated from its OpenAPI document:
 * each operation's method (now and then another), path parameters, query, headers and a JSON body
 * made from the operation's schema (httpFuzzBodies.ts) — valid, with a field dropped, added or of the wrong type, too
 * large for the service or for Temporal, not JSON at all, or sent chunked — under every kind of
 * token; and requests to the routes the document does not list (page, assets, health, metrics).
 */
import fc from 'fast-check';
import { bodyOf, oneOf, text, type Schema } from './httpFuzzBodies';

/** What the fuzzer knows before it starts: ids that exist, tokens of each role, agents the workers serve. */
export interface HttpFuzzPools {
  /** Workflow ids: chains (one waiting for approval, one ended), conversations. */
  ids: string[];
  /** Approval ids that wait. */
  approvalIds: string[];
  /** Event ids (`<runId>:<n>`) the streams sent. */
  eventIds: string[];
  /** Bearer tokens, of every role and of none; the first may do everything. */
  tokens: string[];
  agents: string[];
}

/** One request as sent. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Send the body as a stream, without a Content-Length. */
  chunked?: boolean;
}

/** The parts of an OpenAPI 3.1 document the fuzzer reads. */
export interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}
interface Operation {
  parameters?: { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const uuid = fc.uuid();

/** A path parameter: an id that exists, or one that does not, of every shape. */
function idOf(known: string[]): fc.Arbitrary<string> {
  return oneOf<string>(
    [4, known.length > 0 ? fc.constantFrom(...known) : text],
    [3, text.filter((s) => s.length > 0)],
    [1, fc.constantFrom('a'.repeat(1001), '..', '.', 'a/b', '%', ' ', '\u0000', '🙂', '__proto__', 'constructor')],
    [1, uuid],
  );
}

/** Headers a client might send with an operation: a token of any kind, a body type, and the operation's own headers. */
function headersOf(pools: HttpFuzzPools, op: Operation): fc.Arbitrary<Record<string, string>> {
  const authorization = oneOf<string | undefined>(
    // The first token may do everything, so requests get past the role checks to what lies behind them.
    [5, fc.constant(`Bearer ${pools.tokens[0]}`)],
    [5, fc.constantFrom(...pools.tokens).map((t) => `Bearer ${t}`)],
    [
      1,
      fc.constantFrom(
        undefined,
        'Bearer',
        'Bearer not-a-token',
        'Basic YWxpY2U6eA==',
        'Bearer a.b.c',
        'bearer  ' + pools.tokens[0],
      ),
    ],
  );
  const contentType = oneOf<string | undefined>(
    [8, fc.constant('application/json')],
    [
      2,
      fc.constantFrom(
        undefined,
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/problem+json',
      ),
    ],
  );
  const own = (op.parameters ?? []).filter((p) => p.in === 'header');
  const values = own.map((p) =>
    fc.option(
      p.name === 'last-event-id'
        ? oneOf<string>(
            [3, pools.eventIds.length > 0 ? fc.constantFrom(...pools.eventIds) : text],
            [2, uuid.map((u) => `${u}:1`)],
            [2, text],
          )
        : oneOf<string>(
            [6, fc.string({ minLength: 1, maxLength: 24 })],
            [1, text],
            [1, fc.constant('k'.repeat(201))],
            [1, fc.constant('')],
          ),
      { nil: undefined, freq: 2 },
    ),
  );
  return fc.tuple(authorization, contentType, fc.tuple(...values)).map(([auth, type, vals]) => {
    const headers: Record<string, string> = {};
    if (auth !== undefined) headers.authorization = auth;
    if (type !== undefined) headers['content-type'] = type;
    own.forEach((p, i) => {
      const v = vals[i];
      // Header values are bytes on the wire: a value fetch cannot send is left out.
      if (v !== undefined && /^[\t\x20-\x7e\x80-\xff]*$/.test(v)) headers[p.name] = v;
    });
    return headers;
  });
}

/** Requests for one operation of the document. */
function operationRequests(
  doc: OpenApiDoc,
  pools: HttpFuzzPools,
  template: string,
  method: string,
  op: Operation,
): fc.Arbitrary<FuzzRequest> {
  const params = (op.parameters ?? []).filter((p) => p.in === 'path');
  const ids = fc.tuple(...params.map((p) => idOf(p.name === 'approvalId' ? pools.approvalIds : pools.ids)));
  const query = (op.parameters ?? []).filter((p) => p.in === 'query');
  const queries = fc.tuple(
    ...query.map((p) =>
      fc.option(
        p.schema?.enum ? oneOf<string>([3, fc.constantFrom(...(p.schema.enum as string[]))], [1, text]) : text,
        { nil: undefined },
      ),
    ),
  );
  const schema = op.requestBody?.content?.['application/json']?.schema;
  const body = schema
    ? fc.option(bodyOf(doc, pools, schema), { nil: undefined, freq: 10 })
    : fc.option(bodyOf(doc, pools, {}), { nil: undefined, freq: 2 });
  const verb = oneOf<string>([9, fc.constant(method.toUpperCase())], [1, fc.constantFrom(...METHODS)]);
  return fc
    .record({ verb, ids, queries, headers: headersOf(pools, op), body, chunked: fc.boolean() })
    .map(({ verb, ids, queries, headers, body, chunked }) => {
      let path = template;
      params.forEach((p, i) => (path = path.replace(`{${p.name}}`, encodeURIComponent(ids[i]!))));
      const search = query
        .flatMap((p, i) => (queries[i] === undefined ? [] : [`${p.name}=${encodeURIComponent(queries[i]!)}`]))
        .join('&');
      const sendsBody = body !== undefined && verb !== 'GET' && verb !== 'HEAD';
      return {
        method: verb,
        path: search ? `${path}?${search}` : path,
        headers,
        ...(sendsBody ? { body, chunked } : {}),
      };
    });
}

/** Requests to the routes outside the document: the pages, their assets, health, metrics, and paths that are not routes. */
function otherRequests(pools: HttpFuzzPools): fc.Arbitrary<FuzzRequest> {
  const segment = idOf(pools.ids).map(encodeURIComponent);
  const path = oneOf<string>(
    [2, fc.constantFrom('/', '/healthz', '/metrics', '/openapi.json', '/v1/me')],
    [
      2,
      fc
        .oneof(
          fc.constantFrom('baton.js', 'baton.css', '__proto__', 'constructor', 'toString', 'hasOwnProperty'),
          segment,
        )
        .map((f) => `/assets/${f}`),
    ],
    [1, segment.map((id) => `/runs/${id}`)],
    [2, fc.tuple(fc.constantFrom('/v1/', '/', '/v1/runs/', '/assets/'), segment).map(([a, b]) => a + b)],
  );
  return fc.record({
    method: oneOf<string>([4, fc.constant('GET')], [1, fc.constantFrom(...METHODS)]),
    path,
    headers: headersOf(pools, {}),
  });
}

/** Every request the fuzzer sends: mostly the document's operations, some elsewhere. */
export function httpRequests(doc: OpenApiDoc, pools: HttpFuzzPools): fc.Arbitrary<FuzzRequest> {
  const ops = Object.entries(doc.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, op]) => operationRequests(doc, pools, template, method, op)),
  );
  return oneOf<FuzzRequest>([8, fc.oneof(...ops)], [1, otherRequests(pools)]);
}
