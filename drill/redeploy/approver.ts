/**
 * The person of the redeploy drill: watches `baton.pending()`, approves what waits, and notices
 * when the same question comes twice — the same chain asking about the same handoff or the same
 * tool arguments after it was already asked (a renamed tool counts as the same question).
 */
import type { Baton, PendingHandoff } from '../../src';

export class Approver {
  /** Questions asked again after they were asked once. */
  readonly repeated: string[] = [];
  /** Approvals asked, distinct. */
  asked = 0;
  private readonly seen = new Set<string>();
  private readonly keys = new Set<string>();
  private stopped = false;

  constructor(private readonly baton: Baton) {}

  /** Wait until every chain of `roots` has something waiting for a person in its tree. */
  async untilWaiting(roots: string[], deadline: number): Promise<void> {
    const left = new Set(roots);
    while (left.size > 0) {
      if (Date.now() > deadline) throw new Error(`chains never waited for approval: ${[...left].join(', ')}`);
      for (const p of await this.baton.pending()) left.delete(rootOf(p));
      if (left.size > 0) await pause(200);
    }
  }

  /** Approve everything that waits, as it comes, until stopped or `deadline`. */
  async approveAll(deadline: number): Promise<void> {
    while (!this.stopped && Date.now() < deadline) {
      for (const p of await this.baton.pending().catch(() => [] as PendingHandoff[])) {
        if (this.seen.has(p.approvalId)) continue;
        this.seen.add(p.approvalId);
        const key = `${rootOf(p)} ${p.from} → ${p.tool ? `tool ${p.tool.argumentsText}` : `${p.to}: ${p.message}`}`;
        if (this.keys.has(key)) this.repeated.push(key);
        this.keys.add(key);
        this.asked++;
        // A chain may end meanwhile; the refusal is fine.
        await this.baton.approve(p.workflowId, p.approvalId, { approver: 'drill' }).catch(() => undefined);
      }
      await pause(150);
    }
  }

  stop(): void {
    this.stopped = true;
  }
}

/** The chain at the top of the tree a waiting approval belongs to. */
function rootOf(p: PendingHandoff): string {
  return p.rootWorkflowId ?? p.workflowId;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
