/**
 * A recorded chain as a candidate chain uses it: the answer of every model, tool, summary and
 * routing call by the digest of its input, and the decisions people made on its approvals.
 */
import type { AuditChain } from '../audit/chain';
import type { ApprovalRecord } from '../common/approvals';
import { ActivityType } from '../common/messages';
import { activityKey, toolCallKey } from './digest';
import type { ChainRecord } from './chainRecord';

/** A decision on an approval the recorded chain asked for. */
export interface RecordedDecision {
  /** `handoff:<from>><to>` or the tool call's key. */
  key: string;
  record: ApprovalRecord;
}

/** A recorded chain, ready to answer a candidate's calls. */
export class Recording {
  /** Answers by the key of their call's input, in the order they were recorded. */
  private readonly answers = new Map<string, unknown[]>();
  readonly decisions: RecordedDecision[];

  constructor(readonly chain: ChainRecord) {
    for (const a of chain.activities) {
      const key = activityKey(a.type, a.input);
      if (key === undefined) continue;
      const list = this.answers.get(key) ?? [];
      list.push(a.result);
      this.answers.set(key, list);
    }
    this.decisions = [chain.audit, ...(chain.audit.children ?? [])].flatMap(decisionsOf);
  }

  /**
   * The recorded answer to an activity with this input: the first one of the calls with the same
   * key. `undefined` when the record has no such call.
   */
  answer(type: string, input: unknown): unknown {
    const key = activityKey(type, input);
    return key === undefined ? undefined : this.answers.get(key)?.[0];
  }

  /** Whether the record has a call with this input. */
  has(type: string, input: unknown): boolean {
    return this.answer(type, input) !== undefined;
  }
}

/** The key a handoff's approval is matched by. */
export function handoffDecisionKey(from: string, to: string): string {
  return `handoff:${from}>${to}`;
}

/** The decisions of one chain's approvals, each with what it decided on. */
function decisionsOf(audit: AuditChain): RecordedDecision[] {
  const asked = new Map<string, string>();
  const out: RecordedDecision[] = [];
  for (const e of audit.events) {
    if (e.kind === 'approval_requested') {
      asked.set(
        e.handoffId,
        e.tool
          ? toolCallKey({ agentId: e.from, call: { id: '', name: e.tool.name, arguments: e.tool.arguments } })
          : handoffDecisionKey(e.from, e.to),
      );
    } else if (e.kind === 'approval_decided') {
      const key = asked.get(e.handoffId);
      const { at: _at, runId: _run, eventId: _event, kind: _kind, ...record } = e;
      if (key) out.push({ key, record: record as ApprovalRecord });
    }
  }
  return out;
}

/** Activity types a recording answers. */
export const REUSED_ACTIVITIES: readonly string[] = [
  ActivityType.CALL_MODEL,
  ActivityType.CALL_MODEL_LOCAL,
  ActivityType.RUN_TOOL,
  ActivityType.SUMMARIZE_HANDOFF,
  ActivityType.ROUTE_SPECIALIST,
];
