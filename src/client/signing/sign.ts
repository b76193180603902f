/**
 * Signing a decision on the client: the payload naming what is decided, signed by a
 * {@link DecisionSigner}, as the JWS the workflow verifies.
 */
import type { HandoffDecision, PendingApproval } from '../../common/approvals';
import { UserError } from '../../common/errors';
import {
  compactJws,
  decisionPayload,
  factsOfDecision,
  signingInput,
  type TokenClaims,
} from '../../common/signatures/payload';
import type { DecisionSigner } from './signer';

/** What a signature is made for: the approval as it waits, and the decision on it. */
export interface SigningRequest {
  /** The workflow id of the chain the approval waits in (`PendingApproval.workflowId` for a specialist's). */
  workflowId: string;
  waiting: Pick<PendingApproval, 'handoffId' | 'from' | 'to' | 'tool'>;
  decision: Pick<HandoffDecision, 'approver' | 'decision' | 'comment' | 'reason' | 'arguments' | 'onBehalfOf'>;
  /** A service's signature: the token it checked. */
  token?: TokenClaims;
  /** The time of signing (ms). @default now */
  now?: number;
}

/** The decision's signature: a JWS compact serialization by `signer`. */
export async function signDecision(signer: DecisionSigner, request: SigningRequest): Promise<string> {
  const payload = decisionPayload(
    factsOfDecision(request.workflowId, request.waiting, request.decision),
    Math.floor((request.now ?? Date.now()) / 1000),
    request.token,
  );
  const input = signingInput(signer.kid, payload);
  const signature = await signer.sign(new TextEncoder().encode(input));
  if (!(signature instanceof Uint8Array) || signature.length !== 64)
    throw new UserError(`the signer of key ${signer.kid} must answer a 64-byte Ed25519 signature`);
  return compactJws(input, signature);
}
