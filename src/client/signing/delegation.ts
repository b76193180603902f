/**
 * Signing a delegation grant on the client: "`delegate` decides for `slot` until `until`", signed
 * by the slot's owner (their approver key) or by an operator (a key of the team's `operatorKeys`).
 * The delegate sends it with each decision made for that slot (`onBehalfOf`, `delegation`); the
 * workflow verifies it (docs/approvals.md, "Delegation").
 */
import { UserError } from '../../common/errors';
import {
  DELEGATION_SIGNATURE_VERSION,
  type DelegationPayload,
  delegationSigningInput,
  MAX_DELEGATION_SECONDS,
} from '../../common/signatures/delegation';
import { compactJws } from '../../common/signatures/payload';
import type { DecisionSigner } from './signer';

/** What a grant gives. */
export interface DelegationRequest {
  /** The slot given: the approver name a policy lists. */
  slot: string;
  /** Who may decide for it. */
  delegate: string;
  /** Until when (a `Date` or ms since the epoch); at most 90 days after signing. */
  until: Date | number;
  /** An operator's grant: the operator's name, as the team's `operatorKeys` list it for the signer's key. @default the slot's owner signs */
  operator?: string;
  /** Only this chain. @default every chain that trusts the key */
  workflowId?: string;
  /** The time of signing (ms). @default now */
  now?: number;
}

/**
 * The grant, a JWS compact serialization by `signer`.
 * @example const grant = await signDelegation(aliceSigner, { slot: 'alice', delegate: 'bob', until: Date.parse('2026-12-04T18:00:00Z') })
 */
export async function signDelegation(signer: DecisionSigner, request: DelegationRequest): Promise<string> {
  const iat = Math.floor((request.now ?? Date.now()) / 1000);
  const exp = Math.floor(Number(request.until) / 1000);
  if (!Number.isSafeInteger(exp) || exp <= iat || exp - iat > MAX_DELEGATION_SECONDS)
    throw new UserError(`a grant's "until" must be after now and at most ${MAX_DELEGATION_SECONDS / 86400} days ahead`);
  if (request.slot === '' || request.delegate === '' || request.slot === request.delegate)
    throw new UserError('a grant names a slot and another person to decide for it');
  const payload: DelegationPayload = {
    v: DELEGATION_SIGNATURE_VERSION,
    slot: request.slot,
    delegate: request.delegate,
    authority: request.operator !== undefined ? 'operator' : 'approver',
    by: request.operator ?? request.slot,
    iat,
    exp,
    ...(request.workflowId !== undefined ? { workflowId: request.workflowId } : {}),
  };
  const input = delegationSigningInput(signer.kid, payload);
  const signature = await signer.sign(new TextEncoder().encode(input));
  if (!(signature instanceof Uint8Array) || signature.length !== 64)
    throw new UserError(`the signer of key ${signer.kid} must answer a 64-byte Ed25519 signature`);
  return compactJws(input, signature);
}
