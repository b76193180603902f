/**
 * Signing an operator's override on the client: the JWS the workflow verifies before it lets the
 * override loosen what protects a chain (docs/authority.md).
 */
import { UserError } from '../../common/errors';
import type { RunOverrides } from '../../common/run';
import { compactJws } from '../../common/signatures/payload';
import { OPERATOR_SIGNATURE_VERSION, operatorSigningInput, overridesDigest } from '../../common/signatures/operator';
import type { DecisionSigner } from './signer';

/** What an operator signs: the chain, their name and the overrides as they will be sent. */
export interface OperatorSigningRequest {
  workflowId: string;
  operator: string;
  overrides: Pick<RunOverrides, 'options' | 'models'>;
  /** The time of signing (ms). @default now */
  now?: number;
}

/**
 * The overrides, signed by `signer` for `operator`: send them as they are (`baton.override`, the
 * `overrideRun` signal from any client).
 * @example await baton.override(id, await signOverrides(opsSigner, { workflowId: id, operator: 'ops', overrides: { options: { requireSignature: false } } }))
 */
export async function signOverrides(signer: DecisionSigner, request: OperatorSigningRequest): Promise<RunOverrides> {
  const { options, models } = request.overrides;
  const payload = {
    v: OPERATOR_SIGNATURE_VERSION,
    workflowId: request.workflowId,
    operator: request.operator,
    overrides: overridesDigest({ options, models }),
    iat: Math.floor((request.now ?? Date.now()) / 1000),
  } as const;
  const input = operatorSigningInput(signer.kid, payload);
  const signature = await signer.sign(new TextEncoder().encode(input));
  if (!(signature instanceof Uint8Array) || signature.length !== 64)
    throw new UserError(`the signer of key ${signer.kid} must answer a 64-byte Ed25519 signature`);
  return {
    ...(options !== undefined ? { options } : {}),
    ...(models !== undefined ? { models } : {}),
    operator: request.operator,
    signature: compactJws(input, signature),
  };
}
