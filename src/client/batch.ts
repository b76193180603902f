/**
 * Batch decisions: several similar waiting calls (one tool, the same argument fields; or one
 * handoff edge) approved or rejected together. Each is its own decision, bound to its own call
 * (its `callHash`), signed on its own when signed, and sent to its own chain; one that cannot apply
 * is reported beside the others and stops none of them.
 */
import type { ApprovalRecord, PendingApproval } from '../common/approvals';
import { UserError } from '../common/errors';
import { similarKey } from './inbox';
import type { DecisionSigner } from './signing/signer';

/** The most approvals one batch decides. */
export const MAX_BATCH = 500;

/** One approval of a batch, as the inbox lists it. */
export interface BatchItem {
  workflowId: string;
  approvalId: string;
  /** The `tool.callHash` the approver saw; else the call waiting when the batch is checked. */
  callHash?: string;
}

/** What a batch decides, and who decides it. */
export interface BatchDecision {
  approvals: readonly BatchItem[];
  decision: 'approve' | 'reject';
  approver: string;
  /** With approvals. */
  comment?: string;
  /** With rejections. */
  reason?: string;
  /** Sign each decision with the approver's key (each signature names its own call's digest). */
  signer?: DecisionSigner;
  /**
   * Sign each decision elsewhere: given the waiting approval, answers its JWS (the HTTP service signs
   * for a token's identity), or throws to refuse that approval alone (its outcome says why).
   */
  sign?: (workflowId: string, waiting: PendingApproval) => Promise<string | undefined>;
}

/** How one approval of a batch ended. */
export type BatchOutcome = BatchItem &
  ({ ok: true; record: ApprovalRecord } | { ok: false; error: string; reason: string });

/** The parts of a client a batch needs. */
export interface BatchClient {
  pendingIn(workflowId: string): Promise<PendingApproval[]>;
  decide(workflowId: string, decision: 'approve' | 'reject', options: Record<string, unknown>): Promise<ApprovalRecord>;
}

/** Why `items` cannot be decided together (each waiting, all alike), or nothing. */
export function batchProblems(
  items: readonly BatchItem[],
  waiting: ReadonlyMap<string, PendingApproval | undefined>,
): string[] {
  const keys = new Map<string, string[]>();
  const problems: string[] = [];
  for (const i of items) {
    const p = waiting.get(`${i.workflowId}/${i.approvalId}`);
    if (!p) continue;
    const key = similarKey(p);
    keys.set(key, [...(keys.get(key) ?? []), i.approvalId]);
  }
  if (keys.size > 1)
    problems.push(
      `a batch decides similar calls only (one tool with the same argument fields, or one handoff edge); these differ: ${[...keys].map(([k, ids]) => `${k} (${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''})`).join('; ')}`,
    );
  return problems;
}

/** Check a batch's shape: its items, each once, and the decision's fields. */
export function checkBatch(batch: BatchDecision): void {
  const n = batch.approvals?.length ?? 0;
  if (!Array.isArray(batch.approvals) || n === 0 || n > MAX_BATCH)
    throw new UserError(
      `approvals must list 1 to ${MAX_BATCH} waiting approvals as {workflowId, approvalId}, got ${Array.isArray(batch.approvals) ? n : typeof batch.approvals}`,
    );
  const seen = new Set<string>();
  for (const [k, i] of batch.approvals.entries()) {
    if (
      typeof i?.workflowId !== 'string' ||
      i.workflowId === '' ||
      typeof i.approvalId !== 'string' ||
      i.approvalId === ''
    )
      throw new UserError(`approvals[${k}] must be {workflowId, approvalId} of a waiting approval`);
    const key = `${i.workflowId}/${i.approvalId}`;
    if (seen.has(key)) throw new UserError(`approvals[${k}] repeats ${key}: each approval is decided once`);
    seen.add(key);
  }
  if (batch.decision !== 'approve' && batch.decision !== 'reject')
    throw new UserError(`decision must be "approve" or "reject", got ${JSON.stringify(batch.decision)}`);
  if (typeof batch.approver !== 'string' || batch.approver.trim() === '')
    throw new UserError('approver must name who decides');
  if (batch.comment !== undefined && batch.decision !== 'approve')
    throw new UserError('comment goes with "approve"; a rejection gives its reason');
  if (batch.reason !== undefined && batch.decision !== 'reject')
    throw new UserError('reason goes with "reject"; an approval gives a comment');
}

/**
 * Decide a batch: check it, read what waits in its chains (one query per chain), refuse it whole when
 * its calls are not alike, then send each decision, a few at a time. Approvals no longer waiting are
 * reported as such, not decided.
 */
export async function decideBatch(client: BatchClient, batch: BatchDecision): Promise<BatchOutcome[]> {
  checkBatch(batch);
  const chains = [...new Set(batch.approvals.map((i) => i.workflowId))];
  const found = await Promise.all(
    chains.map(async (id) => [id, await client.pendingIn(id).catch(() => [] as PendingApproval[])] as const),
  );
  const waiting = new Map<string, PendingApproval | undefined>();
  for (const [id, pending] of found) {
    for (const p of pending) waiting.set(`${id}/${p.handoffId}`, p);
  }
  const problems = batchProblems(batch.approvals, waiting);
  if (problems.length > 0) throw new UserError(problems.join('; '));
  return mapLimited(batch.approvals, 8, async (item): Promise<BatchOutcome> => {
    const p = waiting.get(`${item.workflowId}/${item.approvalId}`);
    if (!p)
      return {
        ...item,
        ok: false,
        error: 'ApprovalRefusedError',
        reason: `no approval ${item.approvalId} is waiting in chain ${item.workflowId}`,
      };
    const callHash = item.callHash ?? p.tool?.callHash;
    try {
      const signature = batch.sign ? await batch.sign(p.workflowId ?? item.workflowId, p) : undefined;
      const options = {
        approvalId: item.approvalId,
        approver: batch.approver,
        ...(batch.comment !== undefined ? { comment: batch.comment } : {}),
        ...(batch.reason !== undefined ? { reason: batch.reason } : {}),
        ...(callHash !== undefined ? { callHash } : {}),
        ...(batch.signer ? { signer: batch.signer } : signature !== undefined ? { signature } : {}),
      };
      return {
        ...item,
        ...(callHash !== undefined ? { callHash } : {}),
        ok: true,
        record: await client.decide(item.workflowId, batch.decision, options),
      };
    } catch (err) {
      return {
        ...item,
        ok: false,
        error: (err as Error).name ?? 'Error',
        reason: (err as Error).message ?? String(err),
      };
    }
  });
}

/** `fn` over `items`, at most `limit` at once, results in the items' order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
