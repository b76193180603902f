/**
 * The limits of everything baton takes from outside: what a chain or a conversation is started
 * with, decisions, overrides, conversation messages and specialists' reports. The workflows enforce
 * them themselves (update validators, signal handlers, the start), so they hold for every client —
 * the library, the `baton` CLI, the HTTP service, another SDK, the `temporal` CLI, raw gRPC — and
 * what baton writes per event (memo, search attributes, records, the result) stays bounded
 * whatever arrives. docs/bad-inputs.md lists them with the tests that prove each.
 *
 * Workflow-safe: no I/O.
 */

/** The limits, by field. Characters are UTF-16 code units (`string.length`); bytes are UTF-8 of the JSON; times are seconds. */
export const LIMITS = {
  /** An approver's name (`approver` of a decision): characters. */
  approverChars: 256,
  /** An approval's id (`handoffId`) and a tool call's `callHash`: characters. */
  idChars: 128,
  /** The `comment` of an approval and the `reason` of a rejection: characters. */
  noteChars: 4096,
  /** Edited `arguments` of a tool call, as JSON: bytes. */
  argumentsBytes: 64 * 1024,
  /** A whole decision (`approveHandoff`, `rejectHandoff`, `decideHandoff`), as JSON: bytes. */
  decisionBytes: 80 * 1024,
  /** The `agent` a chain or conversation starts at: characters (agent ids are at most 64). */
  agentChars: 128,
  /** A chain's `input` and a conversation message: bytes (UTF-8). */
  messageBytes: 256 * 1024,
  /** A conversation message's `idempotencyKey`: characters. */
  idempotencyKeyChars: 256,
  /** Run `options` at the start, and `overrideRun` overrides, as JSON: bytes. */
  optionsBytes: 64 * 1024,
  /** A run's application `context`, as JSON: bytes (it travels with every tool call). */
  contextBytes: 64 * 1024,
  /** A specialist's report of the approvals waiting in it (`childApprovals`): entries. */
  reportEntries: 1000,
  /** The same report, as JSON: bytes. */
  reportBytes: 1024 * 1024,
  /** A workflow id a report or a link names (Temporal's own limit). */
  workflowIdChars: 1000,
  /** What a refusal records of its reason in history (`decision_refused`, `overrides_refused`, `report_refused`): characters. */
  recordedReasonChars: 1024,
  /** Steering messages (`steer`) waiting in a chain for its next step: entries. */
  waitingSteers: 20,
  /** What the record of a steering message (`batonLive`) keeps of its text: characters. */
  recordedSteerChars: 1024,
  /** A decision's `signature` (a JWS compact serialization): characters. */
  signatureChars: 4096,
  /** Approver keys a team or a run's options may list: entries. */
  approverKeys: 100,
  /** How old a decision's signature may be when it arrives (its `iat`): seconds. */
  signatureMaxAgeSeconds: 900,
  /** How far a signer's clock may run ahead of the workflow's, or sign just before an approval was asked: seconds. */
  signatureClockSkewSeconds: 120,
  /** How deep arrays and objects may nest in any JSON that arrives (a decision, options, a context, a message, a report): levels. */
  jsonDepth: 64,
  /** Fields and items, counted through every level, of any JSON that arrives (a chain's carried state aside): entries. */
  jsonEntries: 10_000,
  /** Refused decisions, overrides and reports a refusal record keeps beside its count (`samples`): entries. */
  refusalSamples: 5,
  /** A question about a waiting approval (`askHandoffQuestion`) and its answer (`answerHandoffQuestion`): characters. */
  questionChars: 2000,
  /** Questions one approval may be asked, answered or not: entries. */
  questionsPerApproval: 5,
  /** Rejection reasons a team may define (`rejectionReasons`): entries. */
  rejectionReasons: 50,
  /** A rejection reason's `code`: characters. */
  reasonCodeChars: 64,
  /** A rejection reason's `label`: characters. */
  reasonLabelChars: 200,
} as const;

/** The unit a limit counts in. */
export type LimitUnit = 'characters' | 'bytes' | 'entries' | 'levels';

/** A field over its limit: which, how large it is, and the limit. */
export interface SizeProblem {
  field: string;
  size: number;
  limit: number;
  unit: LimitUnit;
  /** `size` is where counting stopped, past the limit: the value has at least that much. */
  more?: true;
}

/** UTF-8 bytes of `text`, counted without encoding it. */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** UTF-8 bytes of `value` as JSON (0 for what JSON cannot hold). */
export function jsonBytes(value: unknown): number {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
  return text === undefined ? 0 : utf8Bytes(text);
}

/** The problem of a string field over `limit` characters; none when it is not a string or fits. */
export function charsOver(field: string, value: unknown, limit: number): SizeProblem[] {
  return typeof value === 'string' && value.length > limit
    ? [{ field, size: value.length, limit, unit: 'characters' }]
    : [];
}

/** The problem of a string field over `limit` UTF-8 bytes. */
export function bytesOver(field: string, value: unknown, limit: number): SizeProblem[] {
  if (typeof value !== 'string' || value.length * 3 <= limit) return [];
  const size = utf8Bytes(value);
  return size > limit ? [{ field, size, limit, unit: 'bytes' }] : [];
}

/** The problem of a value over `limit` bytes of JSON. */
export function jsonOver(field: string, value: unknown, limit: number): SizeProblem[] {
  if (value === undefined) return [];
  const size = jsonBytes(value);
  return size > limit ? [{ field, size: Number.isFinite(size) ? size : -1, limit, unit: 'bytes' }] : [];
}

/** A size problem in words: `"decision.comment" is 1500000 characters; the limit is 4096`. */
export function sizeMessage(p: SizeProblem): string {
  if (p.unit === 'levels')
    return `"${p.field}" nests arrays and objects ${p.more ? `more than ${p.limit}` : p.size} levels deep; the limit is ${p.limit} levels`;
  if (p.more) return `"${p.field}" holds more than ${p.limit} fields and items; the limit is ${p.limit} ${p.unit}`;
  const size = p.size < 0 ? 'not JSON' : `${p.size} ${p.unit}`;
  return `"${p.field}" is ${size}; the limit is ${p.limit}${p.unit === 'characters' ? '' : ` ${p.unit}`}`;
}

/** `text` cut to at most `max` characters, saying how much was left out. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = `… (${text.length - max} more characters)`;
  return text.slice(0, Math.max(0, max - note.length)) + note;
}

/** A value from outside as a record may keep it: strings clipped to `max`, anything else left out. */
export function clippedField(value: unknown, max: number): string | undefined {
  return typeof value === 'string' ? clipText(value, max) : undefined;
}

/** Problems as a refusal records them: at most 20, each and all together within {@link LIMITS.recordedReasonChars}. */
export function boundedProblems(problems: readonly string[]): string[] {
  const shown = problems.slice(0, 20).map((p) => clipText(p, LIMITS.recordedReasonChars));
  if (problems.length > shown.length) shown.push(`… and ${problems.length - shown.length} more problems`);
  let room = LIMITS.recordedReasonChars * 4;
  return shown.filter((p) => (room -= p.length) >= 0);
}

/** A reason as a refusal records it: within {@link LIMITS.recordedReasonChars}. */
export function boundedReason(reason: string): string {
  return clipText(reason, LIMITS.recordedReasonChars);
}
