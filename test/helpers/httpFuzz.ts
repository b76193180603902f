/**
 * Fuzzing baton's HTTP service from its own OpenAPI document (see httpFuzzRequests.ts), on a real
 * Temporal server and worker: a team whose chains answer at once unless told to wait for an
 * approval, the ids worth aiming at (chains waiting for approval, completed and failed, a conversation),
 * and the check every answer must pass — no 5xx, problem details for every error, and none of
 * Temporal's raw text or a stack trace in any body, event streams included.
 */
import fc from 'fast-check';
import { defineAgent, scripted, Team } from '../../src';
import type { ServeBatonOptions, StaticToken } from '../../src/server';
import { waitFor } from './wait';
import { httpRequests, type FuzzRequest, type HttpFuzzPools, type OpenApiDoc } from './httpFuzzRequests';

export type { FuzzRequest, HttpFuzzPools } from './httpFuzzRequests';

/** The input that makes triage hand off to refunds, which waits for alice's approval; no generated text contains it. */
const WAIT_FOR_APPROVAL = 'hand-off-and-wait-2f7c';

/** triage answers "Noted." to anything but {@link WAIT_FOR_APPROVAL}; refunds, behind alice's approval, answers "Refunded.". */
export function httpFuzzTeam(): Team {
  return new Team([
    defineAgent({
      id: 'triage',
      instructions: 'You are triage.',
      model: scripted({
        steps: [],
        rules: [
          { whenIncludes: WAIT_FOR_APPROVAL, reply: { handoff: { to: 'refunds', message: 'over to refunds' } } },
          { whenIncludes: '', reply: { text: 'Noted.' } },
        ],
      }),
    }),
    defineAgent({
      id: 'refunds',
      instructions: 'You are refunds.',
      model: scripted({ steps: [], rules: [{ whenIncludes: '', reply: { text: 'Refunded.' } }] }),
      approval: { approvers: ['alice'] },
    }),
  ]);
}

/** Tokens of every role, and of none. */
export const FUZZ_TOKENS: StaticToken[] = [
  { token: 'fuzz-alice-token', identity: 'alice', roles: ['admin'] },
  { token: 'fuzz-viewer-token', identity: 'viewer', roles: ['viewer'] },
  { token: 'fuzz-starter-token', identity: 'ops', roles: ['starter'] },
  { token: 'fuzz-approver-token', identity: 'bob', roles: ['approver'] },
  { token: 'fuzz-nobody-token', identity: 'nobody', roles: [] },
];

/** The service as the fuzzer runs it: small limits, so generated bodies cross both. */
export const FUZZ_SERVICE: Partial<ServeBatonOptions> = {
  auth: { tokens: FUZZ_TOKENS },
  maxBodyBytes: 64 * 1024,
  payloadLimitBytes: 16 * 1024,
  rateLimit: { startsPerMinute: 6_000 },
  metrics: false,
  // A turn that waits (an approval) answers 202 soon, so it is one request among many, not most of a run.
  replyWaitMs: 2_000,
};

/** An answer as the fuzzer read it (a stream: what came in its first moments). */
export interface FuzzAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** Figures of a fuzz run. */
export interface HttpFuzzTally {
  requests: number;
  byStatus: Record<string, number>;
  /** Answers with a 5xx status. */
  serverErrors: number;
  /** Answers carrying Temporal's raw text or a stack trace. */
  rawText: number;
  /** Each failed check, with its request. */
  problems: string[];
  /** The slowest answers, slowest first: how long each took, its status and its request. */
  slowest: string[];
}

/** How many of the slowest answers a tally keeps. */
const SLOWEST = 5;
/** How long the fuzzer waits for an answer before it counts the request as unanswered. */
const ANSWER_MS = 20_000;

const admin = () => ({ authorization: `Bearer ${FUZZ_TOKENS[0]!.token}`, 'content-type': 'application/json' });

/** Start the ids worth aiming at through the service itself: a chain waiting for approval, one that completed, one that failed, a conversation. */
export async function seedPools(base: string): Promise<HttpFuzzPools> {
  const post = async (path: string, body: unknown) =>
    (await fetch(`${base}${path}`, { method: 'POST', headers: admin(), body: JSON.stringify(body) })).json() as Promise<
      Record<string, string>
    >;
  const waiting = await post('/v1/runs', { agent: 'triage', input: WAIT_FOR_APPROVAL });
  const ended = await post('/v1/runs', { agent: 'triage', input: 'hello' });
  // Fails at once (a handoff with none allowed): a chain replay can continue.
  const failed = await post('/v1/runs', { agent: 'triage', input: WAIT_FOR_APPROVAL, options: { maxHandoffs: 0 } });
  const chat = `fuzz-chat-${Date.now().toString(36)}`;
  await post(`/v1/conversations/${chat}/messages`, { agent: 'triage', message: 'hi' });
  const approvals = await waitFor(
    async () =>
      (
        (await (await fetch(`${base}/v1/approvals`, { headers: admin() })).json()) as {
          approvals: { workflowId: string; handoffId: string }[];
        }
      ).approvals,
    (list) => list.some((a) => a.workflowId === waiting.workflowId),
  );
  return {
    ids: [waiting.workflowId!, ended.workflowId!, failed.workflowId!, chat],
    approvalIds: approvals.filter((a) => a.workflowId === waiting.workflowId).map((a) => a.handoffId),
    eventIds: [`${waiting.runId}:0`, `${ended.runId}:1`, `${ended.runId}:99`],
    tokens: FUZZ_TOKENS.map((t) => t.token!),
    agents: ['triage', 'refunds'],
  };
}

/** How long an open event stream is read before the fuzzer hangs up. */
const STREAM_READ_MS = 250;

/** Send `req` to the service at `base`. */
export async function send(base: string, req: FuzzRequest): Promise<FuzzAnswer> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ANSWER_MS);
  try {
    const body = req.body === undefined ? undefined : req.chunked ? new Blob([req.body]).stream() : req.body;
    const res = await fetch(`${base}${req.path}`, {
      method: req.method,
      headers: req.headers,
      redirect: 'manual',
      signal: abort.signal,
      ...(body !== undefined ? { body, duplex: 'half' } : {}),
    } as RequestInit);
    const contentType = res.headers.get('content-type') ?? '';
    if (!contentType.startsWith('text/event-stream') || !res.body)
      return { status: res.status, contentType, text: await res.text() };
    let text = '';
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    const until = Date.now() + STREAM_READ_MS;
    for (;;) {
      const next = await Promise.race([
        reader.read(),
        new Promise<undefined>((r) => setTimeout(() => r(undefined), Math.max(0, until - Date.now()))),
      ]);
      if (!next || next.done) break;
      text += next.value;
    }
    abort.abort();
    return { status: res.status, contentType, text };
  } finally {
    clearTimeout(timer);
  }
}

/** Temporal's status names, gRPC, its error codes, stack frames: what no answer may carry. */
const RAW = [
  /\b(INVALID_ARGUMENT|NOT_FOUND|FAILED_PRECONDITION|ALREADY_EXISTS|RESOURCE_EXHAUSTED|PERMISSION_DENIED|DEADLINE_EXCEEDED|UNAVAILABLE|UNIMPLEMENTED|INTERNAL)\b/,
  /grpc|TMPRL\d|ServiceError|node_modules/i,
  /(?:^|\n|\\n)\s+at \S[^\n]*:\d+:\d+/,
];

/** What is wrong with `answer` to `req`; empty when nothing is. */
export function answerProblems(req: FuzzRequest, answer: FuzzAnswer): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  const raw = RAW.map((re) => re.exec(answer.text)).find((m) => m !== null);
  if (raw) problems.push(`raw text "${raw[0].slice(0, 80)}"`);
  if (answer.status >= 400 && req.method !== 'HEAD') {
    if (answer.contentType !== 'application/problem+json')
      problems.push(`a ${answer.status} as ${answer.contentType || 'no content type'}`);
    else {
      const body = JSON.parse(answer.text) as { status?: unknown; title?: unknown; detail?: unknown };
      if (body.status !== answer.status || typeof body.title !== 'string' || typeof body.detail !== 'string')
        problems.push(`problem details that do not fit: ${answer.text.slice(0, 200)}`);
    }
  }
  return problems;
}

/** One line about a request, for a report (bodies cut short). */
export function describeRequest(req: FuzzRequest): string {
  const body =
    req.body === undefined
      ? ''
      : ` ${req.chunked ? 'chunked ' : ''}body ${JSON.stringify(req.body.slice(0, 120))}${req.body.length > 120 ? `… (${req.body.length} characters)` : ''}`;
  return `${req.method} ${req.path.slice(0, 200)} ${JSON.stringify(req.headers)}${body}`;
}

/**
 * Fuzz the service at `base` with `numRuns` requests generated from its `/openapi.json`; a request
 * whose answer fails the check, or that no answer comes to in 20 s, fails the property (fast-check
 * then shrinks it, unless `endOnFailure`). `timeLimitMs` stops sending once it has passed.
 */
export async function fuzzHttp(
  base: string,
  pools: HttpFuzzPools,
  options: { numRuns: number; seed?: number; timeLimitMs?: number; endOnFailure?: boolean },
): Promise<HttpFuzzTally & { details: fc.RunDetails<[FuzzRequest]> }> {
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as OpenApiDoc;
  const tally: HttpFuzzTally = { requests: 0, byStatus: {}, serverErrors: 0, rawText: 0, problems: [], slowest: [] };
  const timed: { ms: number; line: string }[] = [];
  const property = fc.asyncProperty(httpRequests(doc, pools), async (req) => {
    let answer: FuzzAnswer;
    const began = Date.now();
    try {
      answer = await send(base, req);
      timed.push({ ms: Date.now() - began, line: `${answer.status}: ${describeRequest(req)}` });
    } catch (err) {
      timed.push({ ms: Date.now() - began, line: `no answer: ${describeRequest(req)}` });
      const cause = (err as { cause?: unknown }).cause;
      tally.problems.push(`no answer (${String(err)}${cause ? `: ${String(cause)}` : ''}): ${describeRequest(req)}`);
      return false;
    }
    tally.requests += 1;
    tally.byStatus[answer.status] = (tally.byStatus[answer.status] ?? 0) + 1;
    const problems = answerProblems(req, answer);
    if (answer.status >= 500) tally.serverErrors += 1;
    if (problems.some((p) => p.startsWith('raw text'))) tally.rawText += 1;
    if (problems.length > 0) {
      tally.problems.push(
        `${problems.join('; ')}: ${describeRequest(req)} → ${answer.status} ${answer.text.slice(0, 300)}`,
      );
      return false;
    }
    return true;
  });
  const details = await fc.check(property, {
    numRuns: options.numRuns,
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.timeLimitMs ? { interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false } : {}),
    ...(options.endOnFailure ? { endOnFailure: true } : {}),
  });
  tally.slowest = timed
    .sort((a, b) => b.ms - a.ms)
    .slice(0, SLOWEST)
    .map((t) => `${t.ms} ms, ${t.line}`);
  return { ...tally, details };
}
