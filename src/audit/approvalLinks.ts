/**
 * Which approval each tool call ran under: the audit names it on the call's event, so an export's
 * reader can check that every call that needed approval ran after its approving decision.
 */
import type { ApprovalRecord, PendingApproval } from '../common/approvals';
import type { ToolCallUnderApproval } from '../common/controls';
import type { ToolCall } from '../common/model';

interface Asked {
  handoffId: string;
  agent: string;
  tool: ToolCallUnderApproval;
  /** Whether the call may run: approved, or approved by its policy when nobody decided in time. */
  runs?: boolean;
  used?: boolean;
}

/** The tool approvals of a chain, across its runs, and the calls that ran under them. */
export class ApprovalLinks {
  private readonly asked: Asked[] = [];

  /** A tool call was put in front of people. */
  requested(p: Pick<PendingApproval, 'handoffId' | 'from' | 'tool'>): void {
    if (p.tool) this.asked.push({ handoffId: p.handoffId, agent: p.from, tool: p.tool });
  }

  /** A decision (or a timeout) on an approval. */
  decided(r: ApprovalRecord): void {
    const a = this.asked.find((x) => x.handoffId === r.handoffId);
    if (a) a.runs = r.outcome === 'approved' || (r.outcome === 'timed_out' && r.onTimeout === 'approve');
  }

  /**
   * A run that replays an earlier one started: a call it runs again (one that did not complete in
   * the run it replays) runs under the decision the replay carries, as it did there.
   */
  replayed(): void {
    for (const a of this.asked) a.used = false;
  }

  /** The approval a scheduled call of `agent` runs under (once per approval and run): same tool, same call id, decided so it may run. */
  ranUnder(agent: string, call: ToolCall): string | undefined {
    const a = this.asked.find(
      (x) => !x.used && x.runs && x.agent === agent && x.tool.name === call.name && x.tool.toolCallId === call.id,
    );
    if (!a) return undefined;
    a.used = true;
    return a.handoffId;
  }
}
