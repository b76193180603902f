/**
 * What a decision's signature covers: the payload naming exactly what is decided (the chain, the
 * approval, the handoff or the exact tool call, the outcome, the approver, a note's digest, the
 * time), in canonical JSON, as the payload of a JWS compact serialization
 * (`base64url(header).base64url(payload).base64url(signature)`, header `{"alg":"EdDSA","kid":…}`).
 * docs/signatures.md spells out the bytes, with an example from Python.
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalRecord, HandoffDecision, PendingApproval } from '../approvals';
import { base64url, canonicalJson, sha256Hex } from './canonical';
import { jwsSigningInput } from './jws';

/** The version tag of the payload (`v`); a payload of another version is refused. */
export const DECISION_SIGNATURE_VERSION = 'baton.decision/1';

/** What a decision is about: a handoff (`from` → `to`), or a tool call by `from`. */
export type DecisionSubject =
  | { kind: 'handoff'; from: string; to: string }
  | {
      kind: 'tool_call';
      from: string;
      tool: string;
      /** The waiting call's `callHash`. */
      callHash: string;
      /** With edited arguments: SHA-256 (hex) of their canonical JSON. */
      arguments?: string;
    };

/** What a decision decides, as its signature must name it. */
export interface DecisionFacts {
  /** The workflow id of the chain the approval waits in (a specialist's own, for its approvals). */
  workflowId: string;
  /** The approval's id (`handoffId`). */
  approval: string;
  subject: DecisionSubject;
  outcome: 'approve' | 'reject';
  approver: string;
  /** A staged approval's decision for another's slot: that slot's owner. */
  onBehalfOf?: string;
  /** SHA-256 (hex) of the UTF-8 of the comment (approve) or reason (reject), when one is given. */
  note?: string;
}

/** The issuer and subject of the token an HTTP service checked, in its signatures. */
export interface TokenClaims {
  iss: string;
  sub: string;
}

/** The signed payload: the facts, the version tag, the time of signing and, in a service's signature, the token it checked. */
export interface DecisionPayload extends DecisionFacts {
  v: typeof DECISION_SIGNATURE_VERSION;
  /** When it was signed: seconds since 1970-01-01T00:00:00Z (a JWT's `iat`). */
  iat: number;
  token?: TokenClaims;
}

/** SHA-256 (hex) of edited arguments' canonical JSON, as a tool call's subject names them. */
export function argumentsDigest(args: Record<string, unknown>): string {
  return sha256Hex(canonicalJson(args));
}

/** The facts of decision `d` on the approval `waiting`, waiting in the chain `workflowId`. */
export function factsOfDecision(
  workflowId: string,
  waiting: Pick<PendingApproval, 'handoffId' | 'from' | 'to' | 'tool'>,
  d: Pick<HandoffDecision, 'approver' | 'decision' | 'comment' | 'reason' | 'arguments' | 'onBehalfOf'>,
): DecisionFacts {
  const note = d.decision === 'approve' ? d.comment : d.reason;
  const edited =
    d.decision === 'approve' && d.arguments !== undefined ? { arguments: argumentsDigest(d.arguments) } : {};
  return {
    workflowId,
    approval: waiting.handoffId,
    subject: waiting.tool
      ? { kind: 'tool_call', from: waiting.from, tool: waiting.tool.name, callHash: waiting.tool.callHash, ...edited }
      : { kind: 'handoff', from: waiting.from, to: waiting.to },
    outcome: d.decision,
    approver: d.approver,
    ...(d.onBehalfOf !== undefined ? { onBehalfOf: d.onBehalfOf } : {}),
    ...(note !== undefined ? { note: sha256Hex(note) } : {}),
  };
}

/**
 * The facts a recorded decision stands for, from its record and the approval it decided (as the
 * audit shows them); `undefined` for a wait that timed out, which nobody signs.
 */
export function factsOfRecord(
  workflowId: string,
  asked: Pick<PendingApproval, 'handoffId' | 'from' | 'to' | 'tool'>,
  r: ApprovalRecord,
): DecisionFacts | undefined {
  if (r.outcome === 'timed_out' || r.approver === undefined) return undefined;
  const outcome = r.outcome === 'approved' ? 'approve' : 'reject';
  const note = outcome === 'approve' ? r.comment : r.reason;
  const edited = r.argumentsDigest !== undefined ? { arguments: r.argumentsDigest } : {};
  return {
    workflowId,
    approval: asked.handoffId,
    subject: asked.tool
      ? { kind: 'tool_call', from: asked.from, tool: asked.tool.name, callHash: asked.tool.callHash, ...edited }
      : { kind: 'handoff', from: asked.from, to: asked.to },
    outcome,
    approver: r.approver,
    ...(r.onBehalfOf !== undefined ? { onBehalfOf: r.onBehalfOf } : {}),
    ...(note !== undefined ? { note: sha256Hex(note) } : {}),
  };
}

/** The payload signing `facts` at `iat` (seconds), with a service's token claims. */
export function decisionPayload(facts: DecisionFacts, iat: number, token?: TokenClaims): DecisionPayload {
  return { v: DECISION_SIGNATURE_VERSION, ...facts, iat, ...(token ? { token } : {}) };
}

/** The JWS signing input: `base64url(header) "." base64url(payload)`, both canonical JSON; what Ed25519 signs (as ASCII). */
export function signingInput(kid: string, payload: DecisionPayload): string {
  return jwsSigningInput(kid, payload);
}

/** The JWS compact serialization of a signing input and its 64-byte Ed25519 signature. */
export function compactJws(input: string, signature: Uint8Array): string {
  return `${input}.${base64url(signature)}`;
}
