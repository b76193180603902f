/**
 * The invariants every fuzzed chain must keep whatever its model does, checked once it ended:
 *
 * - it ends (within the deadline) with a result or one of baton's typed errors;
 * - no workflow task failed;
 * - it keeps its limits: at most `maxHandoffs` handoffs, at most `maxTurns` model turns per
 *   activation of an agent (one more under `onBudgetExceeded: 'final_answer'`);
 * - every handoff in the result (or, for a failed chain, in its audit) is recorded in history
 *   exactly once, in order (the `batonHandoff` memo upserts), goes to a target its source may hand
 *   off to, and carries an approval when an approval rule covers it;
 * - the final agent is the last handoff's target, or the start agent;
 * - the audit rebuilt from history agrees with the result: status, handoffs, final agent, output,
 *   failure type.
 *
 * No vitest here: the fuzzing drill (drill/fuzz.ts) uses it too.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { BatonError, MaxHandoffsExceededError, type Baton, type RunResult } from '../../src';
import { BATON_ERROR_TYPES, type HandoffRecord } from '../../src/workflow';
import type { AuditChain } from '../../src/audit';
import { recordedHandoff } from '../../src/audit/history';
import { RUN_OPTIONS } from '../../src/common/options';
import type { HistoryEvent } from '../../src/payloads/read';
import { FUZZ_TARGETS, type FuzzAgent } from './fuzzTeam';
import type { FuzzChain } from './fuzzScenario';

/** How a chain ended: with a result, with an error, or not before the deadline. */
export type Ending = { result: RunResult } | { error: unknown } | { stuck: true };

/** The invariants of one chain, as violations (none when it kept them all), and its handoffs. */
export async function checkChain(
  client: Client,
  baton: Baton,
  workflowId: string,
  chain: FuzzChain,
  ending: Ending,
): Promise<{ violations: string[]; handoffs: number }> {
  const v: string[] = [];
  const events: HistoryEvent[] = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const audit = await baton.audit(workflowId);
  const maxHandoffs = chain.options.maxHandoffs ?? RUN_OPTIONS.maxHandoffs.default;
  const maxTurns = chain.options.maxTurns ?? RUN_OPTIONS.maxTurns.default;

  if ('stuck' in ending)
    v.push(
      `did not end before the deadline (audit status ${audit.status}${audit.stuck ? `, stuck: ${audit.stuck.error}` : ''})`,
    );
  if ('error' in ending) {
    const err = ending.error as Error;
    if (!(err instanceof BatonError) || !BATON_ERROR_TYPES.includes(err.name))
      v.push(`failed with an untyped error: ${err?.name}: ${err?.message}`);
  }
  for (const e of events) {
    // A completion that met a signal arriving meanwhile fails with UnhandledCommand and the task runs
    // again at once with the signal: Temporal's way of delivering it, not a failing workflow task.
    const failed = e.workflowTaskFailedEventAttributes;
    if (
      failed &&
      failed.cause !== temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND
    ) {
      v.push(`WorkflowTaskFailed (event ${String(e.eventId)}): ${failed.failure?.message ?? String(failed.cause)}`);
    }
  }
  if ('stuck' in ending) return { violations: v, handoffs: audit.handoffs.length };

  const chainOf: HandoffRecord[] = 'result' in ending ? ending.result.handoffChain : audit.handoffs;
  if (chainOf.length > maxHandoffs) v.push(`${chainOf.length} handoffs, more than maxHandoffs ${maxHandoffs}`);
  v.push(...recordedOnce(events, chainOf));
  v.push(...targetsAllowed(chainOf));
  v.push(...approvalsKept(chain, chainOf));
  v.push(...turnsKept(audit, maxTurns, chain.options.onBudgetExceeded === 'final_answer'));
  if ('result' in ending) {
    const r = ending.result;
    const expected = r.handoffChain.at(-1)?.to ?? chain.start;
    if (r.finalAgent !== expected) v.push(`final agent ${r.finalAgent}, but the chain ends at ${expected}`);
  } else if (ending.error instanceof MaxHandoffsExceededError && !isDeepStrictEqual(ending.error.chain, chainOf)) {
    v.push(`MaxHandoffsExceededError carries ${ending.error.chain.length} handoffs, history ${chainOf.length}`);
  }
  v.push(...auditAgrees(audit, ending));
  return { violations: v, handoffs: chainOf.length };
}

/** Each handoff recorded exactly once in history, in order, as the result has it. */
function recordedOnce(events: HistoryEvent[], chain: HandoffRecord[]): string[] {
  const records = events.flatMap((e) => {
    const r = recordedHandoff(e);
    return r ? [r] : [];
  });
  const v: string[] = [];
  const indexes = records.map((r) => r.index);
  if (new Set(indexes).size !== indexes.length)
    v.push(`a handoff recorded twice in history (indexes ${indexes.join(', ')})`);
  if (records.length !== chain.length)
    v.push(`${records.length} handoffs recorded in history, ${chain.length} in the chain`);
  chain.forEach((h, i) => {
    const r = records[i]?.handoff;
    if (r && !isDeepStrictEqual(r, h))
      v.push(`handoff ${i + 1} differs from its history record: ${brief(h)} vs ${brief(r)}`);
  });
  return v;
}

function targetsAllowed(chain: HandoffRecord[]): string[] {
  return chain.flatMap((h, i) =>
    (FUZZ_TARGETS[h.from as FuzzAgent] as readonly string[] | undefined)?.includes(h.to)
      ? []
      : [`handoff ${i + 1} ${h.from} → ${h.to}: not a target ${h.from} may hand off to`],
  );
}

/** A handoff an approval rule covers went ahead only approved (or approved by its timeout). */
function approvalsKept(chain: FuzzChain, handoffs: HandoffRecord[]): string[] {
  const rules = chain.options.approvals ?? [];
  return handoffs.flatMap((h, i) => {
    const rule =
      rules.find((r) => r.from === h.from && r.to === h.to) ?? rules.find((r) => r.from === undefined && r.to === h.to);
    if (!rule || rule.required === false) return [];
    const a = h.approval;
    if (!a || (a.outcome !== 'approved' && a.outcome !== 'timed_out'))
      return [`handoff ${i + 1} ${h.from} → ${h.to} needed approval but went ahead ${a ? a.outcome : 'without one'}`];
    if (a.outcome === 'approved' && a.approver !== 'alice')
      return [`handoff ${i + 1} approved by ${a.approver}, who never decided`];
    return [];
  });
}

/** Model turns of each activation (between handoffs) within maxTurns, plus the final turn under `final_answer`. */
function turnsKept(audit: AuditChain, maxTurns: number, finalAnswer: boolean): string[] {
  const allowed = maxTurns + (finalAnswer ? 1 : 0);
  const violations: string[] = [];
  let turns = 0;
  for (const e of audit.events) {
    if (e.kind === 'handoff') turns = 0;
    if (e.kind !== 'model_turn' || ++turns <= allowed) continue;
    violations.push(
      `${turns} model turns in one activation of ${e.agent}, more than maxTurns ${maxTurns}${finalAnswer ? ' (+1 final answer)' : ''}`,
    );
  }
  return violations;
}

function auditAgrees(audit: AuditChain, ending: Ending): string[] {
  const v: string[] = [];
  if ('result' in ending) {
    const r = ending.result;
    if (audit.status !== 'completed') v.push(`audit status ${audit.status}, the run completed`);
    if (!isDeepStrictEqual(audit.handoffs, r.handoffChain))
      v.push(`audit handoffs ${audit.handoffs.map(brief).join(', ')} ≠ result ${r.handoffChain.map(brief).join(', ')}`);
    if (audit.result?.finalAgent !== r.finalAgent)
      v.push(`audit final agent ${audit.result?.finalAgent}, result ${r.finalAgent}`);
    if (!isDeepStrictEqual(audit.result?.output, r.output))
      v.push(`audit output ${clip(audit.result?.output)} ≠ result ${clip(r.output)}`);
    const final = audit.events.filter((e) => e.kind === 'final_answer').at(-1);
    if (
      !final ||
      final.kind !== 'final_answer' ||
      final.agent !== r.finalAgent ||
      !isDeepStrictEqual(final.output, r.output)
    )
      v.push(`audit final_answer event ${clip(final)} ≠ result (${r.finalAgent}: ${clip(r.output)})`);
  } else if ('error' in ending) {
    const err = ending.error as Error;
    if (audit.status !== 'failed') v.push(`audit status ${audit.status}, the run failed with ${err?.name}`);
    if (audit.failure?.type !== err?.name)
      v.push(`audit failure type ${audit.failure?.type}, the run failed with ${err?.name}`);
  }
  return v;
}

function brief(h: HandoffRecord): string {
  return `${h.from}→${h.to}(${clip(h.message)}, turn ${h.turn}${h.approval ? `, ${h.approval.outcome}` : ''})`;
}

function clip(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined
    ? 'undefined'
    : text.length > 60
      ? `${JSON.stringify(text.slice(0, 60))}… (${text.length} chars)`
      : JSON.stringify(text);
}
