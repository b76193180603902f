/**
 * Whether an approval decision in an export is one a verifier can read and holds as signed: its
 * fields of the right types and its times times; a decision its request needed signed, or whose
 * record names a proven approver, carries a signature; that signature verified with the same pure
 * verification the workflow ran, by a key of the chain (and one you trust, when you name them),
 * proving the identity the record claims; and the edited arguments it keeps those whose digest the
 * approver signed.
 */
import type { ApprovalRecord, PendingApproval } from '../common/approvals';
import { isRecord } from '../common/check';
import { canonicalJson, sha256Hex } from '../common/signatures/canonical';
import type { ApproverKey, TrustedKey } from '../common/signatures/keys';
import { lastSignCount } from '../common/signatures/passkey';
import { factsOfRecord } from '../common/signatures/payload';
import { verifyDecisionSignature } from '../common/signatures/verify';
import type { ExportedChain } from './export';

/** What the signature checks count. */
export interface SignatureCounts {
  signed: number;
  claimed: number;
  /** Edited arguments the export redacts, whose digest could not be checked against them. */
  unchecked: number;
  keys: string[];
}

/** What the signature checks read of a chain: its opening event, and the decisions seen so far. */
export interface SignedChain {
  header: ExportedChain;
  decided: ReadonlyMap<string, { record: ApprovalRecord }>;
}

/**
 * What is wrong with the signature of decision `r` on the approval `asked` of chain `workflowId`
 * (or with its lack of one), and with the edited arguments it keeps; nothing when they hold (then
 * it counts as signed, or as claimed).
 */
export function signatureProblem(
  workflowId: string,
  chain: SignedChain,
  asked: Pick<PendingApproval, 'handoffId' | 'from' | 'to' | 'tool' | 'requireSignature'>,
  r: ApprovalRecord,
  counts: SignatureCounts,
  trusted: ApproverKey[] | undefined,
): string | undefined {
  if (r.signature === undefined) {
    if (r.identity && r.identity.method !== 'claimed')
      return `the record says the approver was ${r.identity.method}, but it carries no signature`;
    if (r.outcome === 'timed_out') return undefined;
    if (asked.requireSignature === true)
      return `approval ${r.handoffId} required a signed decision (its request says requireSignature), but this decision carries no signature: a signed decision was stripped to a claimed one`;
    counts.claimed++;
    return undefined;
  }
  const facts = factsOfRecord(workflowId, asked, r);
  if (!facts) return 'a wait that timed out carries a signature';
  const verdict = verifyDecisionSignature(
    r.signature!,
    facts,
    chain.header.keys,
    { requestedAt: Date.parse(r.requestedAt), arrivedAt: Date.parse(r.decidedAt) },
    (kid) =>
      lastSignCount(
        [...chain.decided.values()].map((d) => d.record).filter((d) => d !== r),
        kid,
      ),
  );
  if (!verdict.ok) return `the decision's signature does not hold: ${verdict.reason}`;
  const id = verdict.identity;
  if (
    r.identity?.method !== id.method ||
    r.identity.kid !== id.kid ||
    r.identity.issuer !== id.issuer ||
    r.identity.subject !== id.subject ||
    JSON.stringify(r.identity.passkey) !== JSON.stringify(id.passkey)
  ) {
    return `the record says ${describe(r.identity)}, but the signature shows ${describe(id)}`;
  }
  const key = chain.header.keys.find((k) => k.kid === id.kid) as TrustedKey;
  if (trusted && !trusted.some((k) => k.kid === key.kid && k.publicKey === key.publicKey)) {
    return `key ${key.kid} is not among the keys you trust (or has another public key there)`;
  }
  const editedProblem = editedArgumentsProblem(chain.header, asked, r, counts);
  if (editedProblem) return editedProblem;
  counts.signed++;
  if (!counts.keys.includes(key.kid)) counts.keys.push(key.kid);
  return undefined;
}

/** Whether the edited arguments the record keeps are those whose digest was signed (unless the export redacts them). */
function editedArgumentsProblem(
  header: ExportedChain,
  asked: Pick<PendingApproval, 'from' | 'tool'>,
  r: ApprovalRecord,
  counts: SignatureCounts,
): string | undefined {
  if (r.editedArguments === undefined && r.argumentsDigest === undefined) return undefined;
  if (r.editedArguments === undefined || r.argumentsDigest === undefined)
    return 'the record keeps edited arguments without their digest, or a digest without them';
  if (header.sensitiveTools.includes(`${asked.from}/${asked.tool?.name}`)) {
    counts.unchecked++;
    return undefined;
  }
  let args: unknown;
  try {
    args = JSON.parse(r.editedArguments);
  } catch {
    return 'the edited arguments are not JSON';
  }
  return sha256Hex(canonicalJson(args)) === r.argumentsDigest
    ? undefined
    : 'the edited arguments are not those whose digest the approver signed';
}

/** Why a decided event is not a record a verifier can read: fields of the wrong type, or times that are not times. */
export function recordProblem(r: ApprovalRecord): string | undefined {
  const strings = ['handoffId', 'outcome', 'requestedAt', 'decidedAt'] as const;
  const optional = ['approver', 'comment', 'reason', 'signature', 'editedArguments', 'argumentsDigest'] as const;
  if (
    strings.some((f) => typeof r[f] !== 'string') ||
    optional.some((f) => r[f] !== undefined && typeof r[f] !== 'string')
  )
    return 'the decision is not an approval record (a field has the wrong type)';
  if (Number.isNaN(Date.parse(r.requestedAt)) || Number.isNaN(Date.parse(r.decidedAt)))
    return "the decision's requestedAt and decidedAt must be ISO 8601 times";
  if (r.identity !== undefined && (!isRecord(r.identity) || typeof r.identity.method !== 'string'))
    return "the decision's identity is not {method, kid?, …}";
  return undefined;
}

function describe(identity: ApprovalRecord['identity']): string {
  if (!identity) return 'no identity';
  return `${identity.method}${identity.kid ? ` with key ${identity.kid}` : ''}${identity.passkey ? ` (passkey, from ${identity.passkey.origin}, counter ${identity.passkey.signCount})` : ''}${identity.issuer ? ` (issuer ${identity.issuer}, subject ${identity.subject})` : ''}`;
}
