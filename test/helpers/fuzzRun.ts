/**
 * Running a generated {@link FuzzScenario} on a real server and worker, and checking the
 * invariants every chain must keep whatever its model does:
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
import {
  approveHandoffSignal,
  BATON_ERROR_TYPES,
  rejectHandoffSignal,
  type HandoffRecord,
  type PendingApproval,
} from '../../src/workflow';
import type { AuditChain } from '../../src/audit';
import { recordedHandoff } from '../../src/audit/history';
import { RUN_OPTIONS } from '../../src/common/options';
import type { HistoryEvent } from '../../src/payloads/read';
import { clearBehaviour, FUZZ_TARGETS, setBehaviour, type FuzzAgent } from './fuzzTeam';
import type { FuzzChain, FuzzDecision, FuzzScenario } from './fuzzScenario';

/** How one chain ended and which invariants it broke. */
export interface FuzzChainReport {
  workflowId: string;
  /** `completed`, the failure type, or `stuck`. */
  outcome: string;
  /** Handoffs that happened (of a failed chain too). */
  handoffs: number;
  approvalsDecided: number;
  violations: string[];
}

/** Options of {@link runScenario}. */
export interface RunScenarioOptions {
  baton: Baton;
  /** Workflow ids are `<prefix>-<index>`. */
  prefix: string;
  /** A chain still running this long after it started breaks the "ends" invariant. @default 60000 */
  deadlineMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Start the scenario's chains together, decide their approvals, and check each one. */
export async function runScenario(scenario: FuzzScenario, o: RunScenarioOptions): Promise<FuzzChainReport[]> {
  return Promise.all(scenario.chains.map((chain, i) => runChain(chain, `${o.prefix}-${i}`, o)));
}

type Ending = { result: RunResult } | { error: unknown } | { stuck: true };

async function runChain(chain: FuzzChain, workflowId: string, o: RunScenarioOptions): Promise<FuzzChainReport> {
  const { baton } = o;
  setBehaviour(workflowId, chain.models);
  try {
    try {
      await baton.start(chain.start, chain.input, { ...chain.options, workflowId });
    } catch (err) {
      return {
        workflowId,
        outcome: 'not started',
        handoffs: 0,
        approvalsDecided: 0,
        violations: [`start refused: ${String(err)}`],
      };
    }
    let ended = false;
    const decider = decideApprovals(baton, workflowId, chain.decisions, () => ended);
    const deadline = sleep(o.deadlineMs ?? 60_000).then((): Ending => ({ stuck: true }));
    const resulting = baton
      .getRun(workflowId)
      .result()
      .then(
        (result): Ending => ({ result }),
        (error: unknown): Ending => ({ error }),
      );
    const ending = await Promise.race([resulting, deadline]);
    ended = true;
    const decided = await decider;
    if ('stuck' in ending) {
      // No call of this chain outlives the run: the long poll for its result ends with the termination.
      await baton.client.workflow
        .getHandle(workflowId)
        .terminate('fuzz: past the deadline')
        .then(
          () => resulting,
          () => undefined,
        );
    }
    const checked = await checkChain(baton.client, baton, workflowId, chain, ending);
    return { workflowId, outcome: outcomeOf(ending), approvalsDecided: decided, ...checked };
  } finally {
    clearBehaviour(workflowId);
  }
}

function outcomeOf(ending: Ending): string {
  if ('stuck' in ending) return 'stuck';
  if ('result' in ending) return 'completed';
  const err = ending.error as Error;
  return err instanceof BatonError ? err.name : `untyped ${err?.name ?? typeof err}`;
}

/** Decide each approval the chain waits on with its next decision; answers how many were sent. */
async function decideApprovals(
  baton: Baton,
  workflowId: string,
  decisions: FuzzDecision[],
  ended: () => boolean,
): Promise<number> {
  const seen = new Set<string>();
  const sent: Promise<void>[] = [];
  const run = baton.getRun(workflowId);
  while (!ended()) {
    let waiting: PendingApproval[] = [];
    try {
      waiting = await run.pendingApprovals();
    } catch {
      // The run closed between two polls.
    }
    for (const p of waiting) {
      if (seen.has(p.handoffId)) continue;
      const d = decisions[seen.size % decisions.length]!;
      seen.add(p.handoffId);
      sent.push(sleep(d.delayMs).then(() => decide(baton, workflowId, p, d)));
    }
    await sleep(50);
  }
  await Promise.all(sent);
  return seen.size;
}

async function decide(baton: Baton, workflowId: string, p: PendingApproval, d: FuzzDecision): Promise<void> {
  const action = d.action === 'timeout' && !p.expiresAt ? 'approve' : d.action;
  const approve = () => send(baton, workflowId, p.handoffId, 'approve', d.via);
  // A decision may lose a race with the approval's timeout or the run's end: refusals are expected.
  switch (action) {
    case 'timeout':
      return;
    case 'approve':
      return approve();
    case 'reject':
      return send(baton, workflowId, p.handoffId, 'reject', d.via);
    case 'refused_first':
      await send(baton, workflowId, `not-${p.handoffId}`, 'approve', d.via);
      return approve();
    case 'twice':
      await approve();
      return send(baton, workflowId, p.handoffId, 'reject', d.via);
  }
}

async function send(
  baton: Baton,
  workflowId: string,
  handoffId: string,
  what: 'approve' | 'reject',
  via: FuzzDecision['via'],
): Promise<void> {
  try {
    if (via === 'update') {
      if (what === 'approve') await baton.approve(workflowId, handoffId, { approver: 'alice', comment: 'ok' });
      else await baton.reject(workflowId, handoffId, { approver: 'alice', reason: 'no' });
      return;
    }
    const handle = baton.client.workflow.getHandle(workflowId);
    if (what === 'approve') await handle.signal(approveHandoffSignal, { handoffId, approver: 'alice', comment: 'ok' });
    else await handle.signal(rejectHandoffSignal, { handoffId, approver: 'alice', reason: 'no' });
  } catch {
    // Refused (ApprovalRefusedError), or the run closed first.
  }
}

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

/**
 * A fast-check predicate running each generated scenario under fresh workflow ids
 * (`<prefix>-<n>-<chain>`) and throwing the broken invariants of every chain.
 */
export function fuzzRunner(
  baton: Baton,
  prefix: string,
  options: { deadlineMs?: number; onReport?: (reports: FuzzChainReport[]) => void } = {},
): (scenario: FuzzScenario) => Promise<void> {
  let n = 0;
  return async (scenario) => {
    const reports = await runScenario(scenario, { baton, prefix: `${prefix}-${n++}`, deadlineMs: options.deadlineMs });
    options.onReport?.(reports);
    const broken = reports.filter((r) => r.violations.length > 0);
    if (broken.length > 0)
      throw new Error(
        broken.map((r) => `${r.workflowId} (${r.outcome}):\n  - ${r.violations.join('\n  - ')}`).join('\n'),
      );
  };
}
