/**
 * Signed decisions and exports: approver keys and signers, signing and verifying decisions and
 * operator overrides, the signed payload's facts and canonical JSON —
 * `import { decisionSigner, verifyDecisionSignature } from 'baton-agents/signing'`.
 * @packageDocumentation
 * @module baton-agents/signing
 */
export {
  approverKey,
  decisionSigner,
  decisionSignerFromFile,
  generateApproverKey,
  keyThumbprint,
  type ApproverKeyOptions,
  type DecisionSigner,
  type KeyInput,
  type SignerOptions,
} from './signer';
export { signDecision, type SigningRequest } from './sign';
export { signOverrides, type OperatorSigningRequest } from './operator';
export type { ApproverKey, KeySource, TrustedKey } from '../../common/signatures/keys';
export type { JwksSource, KeySetRecord } from '../../common/signatures/jwks';
export {
  argumentsDigest,
  compactJws,
  decisionPayload,
  DECISION_SIGNATURE_VERSION,
  factsOfDecision,
  factsOfRecord,
  signingInput,
  type DecisionFacts,
  type DecisionPayload,
  type DecisionSubject,
  type TokenClaims,
} from '../../common/signatures/payload';
export {
  SignatureProblem,
  verifyDecisionSignature,
  type SignatureTimes,
  type SignatureVerdict,
} from '../../common/signatures/verify';
export { canonicalJson } from '../../common/signatures/canonical';
export type { Ed25519Signer, ExportKey } from '../../common/signatures/head';
