/**
 * Hostile input, generated with fast-check: oversized and malformed decisions, overrides, reports,
 * forwards, messages and HTTP bodies, as {@link HostileScenario}s of what is sent to a waiting
 * chain and to a conversation (hostile.ts sends them and checks what every target keeps).
 */
import fc from 'fast-check';
import { LIMITS } from '../../src';

/** Stands for the id of the approval that waits, filled in when the case is sent. */
export const REAL_ID = '\u0000real-id';

/** A string of `c` about `bytes` long as JSON (a NUL is 6 bytes there, `é` 2). */
const sized = (bytes: number, c: string) =>
  c.repeat(Math.max(1, Math.ceil(bytes / (Buffer.byteLength(JSON.stringify(c)) - 2))));
const oversized = fc
  .tuple(
    fc.constantFrom(LIMITS.idChars + 1, LIMITS.approverChars + 1, LIMITS.noteChars + 1, 70_000, 300_000, 1_500_000),
    fc.constantFrom('x', 'é', '😀', '\u0000', '"'),
  )
  .map(([bytes, c]) => sized(bytes, c));
const nasty = fc.constantFrom(
  '__proto__',
  'constructor',
  'toString',
  '',
  ' ',
  '\n',
  'null',
  '{"decision":"approve"}',
  '<script>alert(1)</script>',
  '../../etc',
  '\ud800',
  '#1',
  'mallory',
);
const hostileString = fc.oneof(
  { weight: 1, arbitrary: oversized },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
      nasty,
    ),
  },
);
const deep = fc
  .integer({ min: 50, max: 400 })
  .map((n) => Array.from({ length: n }).reduce<unknown>((inner) => ({ a: inner }), 'bottom'));
const hostileValue = fc.oneof(
  hostileString,
  fc.anything({ maxDepth: 3, maxKeys: 5 }),
  deep,
  fc.constant(JSON.parse('{"__proto__": {"polluted": true}}') as unknown),
);

/** An approver anybody but alice: a decision from them never applies. */
const notAlice = fc.oneof(hostileString, hostileValue).filter((a) => a !== 'alice');
const decision = fc.record(
  {
    handoffId: fc.oneof(fc.constant(REAL_ID), hostileString, hostileValue),
    approver: notAlice,
    decision: fc.oneof(fc.constantFrom('approve', 'reject'), hostileValue),
    comment: hostileValue,
    reason: hostileValue,
    arguments: hostileValue,
    callHash: hostileValue,
    extra: hostileValue,
  },
  { requiredKeys: ['approver'] },
);

/** What is sent to the waiting chain. */
export type ChainCase =
  | { kind: 'signal'; name: 'approveHandoff' | 'rejectHandoff'; payload: unknown }
  | { kind: 'update'; payload: unknown }
  | { kind: 'override'; payload: unknown }
  | { kind: 'report'; payload: unknown }
  | { kind: 'forward'; name: 'forwardDecision' | 'forwardedOutcome'; payload: unknown }
  | { kind: 'http'; as: 'alice' | 'mallory'; approvalId: string; body: unknown };

/** What is sent to the conversation. */
export type ConversationCase =
  | { kind: 'message'; payload: unknown }
  | { kind: 'http'; body: unknown; key?: string }
  | { kind: 'signal'; payload: unknown }
  | { kind: 'override'; payload: unknown }
  | { kind: 'report'; payload: unknown };

/** A body alice's token sends that must not decide: a comment over the service's limit, or a decision that is not one. */
const aliceBody = fc.oneof(
  fc.record({
    decision: fc.constantFrom('approve', 'reject'),
    comment: fc.constantFrom(LIMITS.noteChars + 1, 300_000).map((b) => sized(b, 'x')),
  }),
  fc.record(
    { decision: hostileValue.filter((d) => d !== 'approve' && d !== 'reject'), comment: hostileValue },
    { requiredKeys: ['decision'] },
  ),
);

const chainCase: fc.Arbitrary<ChainCase> = fc.oneof(
  fc.record({
    kind: fc.constant('signal' as const),
    name: fc.constantFrom('approveHandoff' as const, 'rejectHandoff' as const),
    payload: fc.oneof({ weight: 4, arbitrary: decision }, { weight: 1, arbitrary: hostileValue }),
  }),
  fc.record({
    kind: fc.constant('update' as const),
    payload: fc.oneof({ weight: 4, arbitrary: decision }, { weight: 1, arbitrary: hostileValue }),
  }),
  fc.record({
    kind: fc.constant('override' as const),
    payload: fc.oneof(
      hostileValue,
      fc.record({ options: hostileValue, models: hostileValue }),
      fc.dictionary(hostileString, hostileValue, { maxKeys: 3 }),
    ),
  }),
  fc.record({
    kind: fc.constant('report' as const),
    payload: fc.oneof(
      hostileValue,
      fc.record({ workflowId: hostileValue, token: hostileValue, pending: fc.array(hostileValue, { maxLength: 3 }) }),
    ),
  }),
  fc.record({
    kind: fc.constant('forward' as const),
    name: fc.constantFrom('forwardDecision' as const, 'forwardedOutcome' as const),
    payload: fc.oneof(
      hostileValue,
      fc.record(
        {
          decision,
          via: hostileValue,
          replyTo: hostileValue,
          forwardId: hostileValue,
          record: hostileValue,
          refused: hostileValue,
        },
        { requiredKeys: [] },
      ),
    ),
  }),
  fc.oneof(
    fc.record({
      kind: fc.constant('http' as const),
      as: fc.constant('mallory' as const),
      approvalId: fc.oneof(
        fc.constant(REAL_ID),
        fc.string({ maxLength: 60 }),
        nasty.filter((x) => x !== '\ud800'),
      ),
      body: fc.oneof(decision, hostileValue),
    }),
    fc.record({
      kind: fc.constant('http' as const),
      as: fc.constant('alice' as const),
      approvalId: fc.constant(REAL_ID),
      body: aliceBody,
    }),
  ),
);

const message = fc.record(
  { message: hostileValue, idempotencyKey: hostileValue, extra: hostileValue },
  { requiredKeys: [] },
);
const conversationCase: fc.Arbitrary<ConversationCase> = fc.oneof(
  fc.record({
    kind: fc.constant('message' as const),
    payload: fc.oneof({ weight: 4, arbitrary: message }, { weight: 1, arbitrary: hostileValue }),
  }),
  fc.record({
    kind: fc.constant('http' as const),
    body: fc.oneof(
      fc.record(
        { agent: fc.oneof(fc.constant('chat'), hostileValue), message: hostileValue, idempotencyKey: hostileValue },
        { requiredKeys: ['agent'] },
      ),
      hostileValue,
    ),
    key: fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('signal' as const), payload: decision }),
  fc.record({ kind: fc.constant('override' as const), payload: hostileValue }),
  fc.record({ kind: fc.constant('report' as const), payload: hostileValue }),
);

/** Bytes of `v` as JSON (0 for what JSON cannot hold). */
export const bytes = (v: unknown) => {
  try {
    return Buffer.byteLength(JSON.stringify(v) ?? '');
  } catch {
    return 0;
  }
};
/** At most ~3 MB sent to one target: a longer history is more than one client call reads. */
const withinBudget = <T>(cases: T[]) => cases.reduce((n, c) => n + bytes(c), 0) < 3_000_000;

/** One generated case: what is sent to a waiting chain and to a conversation. */
export interface HostileScenario {
  chain: ChainCase[];
  conversation: ConversationCase[];
}

export const hostileScenario: fc.Arbitrary<HostileScenario> = fc.record({
  chain: fc.array(chainCase, { minLength: 1, maxLength: 5 }).filter(withinBudget),
  conversation: fc.array(conversationCase, { minLength: 1, maxLength: 5 }).filter(withinBudget),
});
