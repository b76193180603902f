/**
 * The invariants checked once a sequence has been driven to its end: the audit export verifies
 * and holds every decision the workflows took (through the real `baton audit` command in turn),
 * the audit agrees with each result, no workflow task failed, every run (specialists' too) has baton's
 * workflow task timeout, followers ended with the recorded answers (./followerText.ts), and every
 * run kept the context and options its chain started with.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { RunOptions } from '../../src';
import { exportAudit, signAuditExport, verifyAuditExport, type AuditChain } from '../../src/audit';
import type { HandoffRunInput } from '../../src/workflow';
import type { ConversationInput } from '../../src/common/conversation';
import { resolveRunOptions } from '../../src/common/options';
import { fromPayloads } from '../../src/payloads/read';
import { causeName, isRoutine } from '../../src/audit/taskFailures';
import { exportKeys, keys } from '../helpers/signing';
import { broken, clip, cliTurn, type Harness, type Invariant } from './harness';
import { followerText } from './followerText';
import type { RootModel } from './model';
import { historyOf } from '../../src/payloads/historyPages';
import { recordedApprovalEvent } from '../../src/audit/history';
import { WORKFLOW_TASK_TIMEOUT } from '../../src/common/taskTimeout';

/** Every run baton starts (a chain, a specialist, a conversation, a replay, a continue-as-new) has this task timeout. */
const WORKFLOW_TASK_SECONDS = Number.parseInt(WORKFLOW_TASK_TIMEOUT, 10);

async function auditOf(h: Harness, r: RootModel): Promise<AuditChain | undefined> {
  try {
    return await h.baton.audit(r.id);
  } catch (err) {
    broken(h, 'audit-readable', `${r.id}: the audit could not be read: ${String(err)}`);
    return undefined;
  }
}

/** Decisions taken in `audit` and its specialists: approval id → outcome. */
function decisionsIn(doc: ReturnType<typeof exportAudit>): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of doc.events) if (e.event.kind === 'approval_decided') out.set(e.event.handoffId, e.event.outcome);
  return out;
}

/** The export of the chain's latest run (and of each run it was replayed from), each verified. */
async function exportVerifies(h: Harness, r: RootModel): Promise<void> {
  const audit = await auditOf(h, r);
  if (!audit) return;
  const doc = exportAudit(audit);
  const exported = decisionsIn(doc);
  // Decisions in the runs the chain was replayed from: approval id → outcome → run.
  const earlier = new Map<string, Map<string, string>>();
  for (const [runId, d] of [[undefined, doc] as const, ...(await earlierExports(h, r))]) {
    // Signed as an auditor signs exports; the reader trusts that key alone.
    const signed = await signAuditExport(d, keys.audit.signer);
    const verdict = verifyAuditExport(JSON.parse(JSON.stringify(signed)), { exportKeys });
    if (!verdict.ok)
      broken(
        h,
        'export-verifies',
        `${r.id}${runId ? ` run ${runId}` : ''}: the export does not verify: ${clip(verdict.failure, 300)}`,
      );
    if (runId)
      for (const [id, outcome] of decisionsIn(d))
        earlier.set(id, (earlier.get(id) ?? new Map<string, string>()).set(outcome, runId));
  }
  for (const d of r.decided) {
    const before = earlier.get(d.approvalId)?.get(d.outcome);
    const now = exported.get(d.approvalId);
    if (now === d.outcome) continue;
    if (now === undefined && before !== undefined)
      broken(
        h,
        'export-verifies',
        `${r.id}: the decision ${d.approvalId} (${d.outcome}, ${d.subject}) is only in the export of run ${before}, which it was replayed from: the chain's export (baton audit --export) lacks it`,
      );
    else
      broken(
        h,
        'export-verifies',
        `${r.id}: the decision ${d.approvalId} (${d.outcome}, ${d.subject}) the workflow took is ${exported.has(d.approvalId) ? `exported as ${exported.get(d.approvalId)}` : 'in no export'}`,
      );
  }
  // A replay keeps every decision a person took (Temporal's reset where it keeps them, else the state
  // rebuilt from history): no approval is put to people again and decided twice.
  const times = new Map<string, number>();
  for (const d of r.decided) times.set(d.approvalId, (times.get(d.approvalId) ?? 0) + 1);
  for (const [id, n] of times)
    if (n > 1)
      broken(
        h,
        'decision-kept',
        `${r.id}: the approval ${id} was decided ${n} times (${r.decided
          .filter((d) => d.approvalId === id)
          .map((d) => d.outcome)
          .join(
            ', ',
          )}): ${r.replays > 0 ? `a replay of the chain (${r.replays}) put it to people again` : 'it was put to people again'}`,
      );
  if (!cliTurn(h)) return;
  // The same through the real command, as an auditor would run it.
  const file = path.join(h.system.dir, `${r.id}.export.json`);
  const [keyFile, keysFile] = [path.join(h.system.dir, 'audit-key.jwk'), path.join(h.system.dir, 'export-keys.json')];
  fs.writeFileSync(keyFile, JSON.stringify(keys.audit.jwk));
  fs.writeFileSync(keysFile, JSON.stringify(exportKeys));
  const made = await h.system.cli(['audit', r.id, '--export', file, '--key', keyFile]);
  if (made.code !== 0)
    return broken(h, 'export-verifies', `baton audit ${r.id} --export exited ${made.code}: ${clip(made.stderr, 300)}`);
  const checked = await h.system.cli(['audit', '--verify', file, '--export-keys', keysFile]);
  if (checked.code !== 0)
    broken(
      h,
      'export-verifies',
      `baton audit --verify of ${r.id}'s export exited ${checked.code}: ${clip(checked.stdout + checked.stderr, 300)}`,
    );
  const fromCli = decisionsIn(JSON.parse(fs.readFileSync(file, 'utf8')) as ReturnType<typeof exportAudit>);
  if (!isDeepStrictEqual(fromCli, exported))
    broken(
      h,
      'export-verifies',
      `${r.id}: baton audit --export holds decisions ${clip([...fromCli])}, the library's export ${clip([...exported])}`,
    );
}

/** Exports of the runs a chain was replayed from (a replay with overrides starts a run afresh). */
async function earlierExports(h: Harness, r: RootModel): Promise<[string, ReturnType<typeof exportAudit>][]> {
  const out: [string, ReturnType<typeof exportAudit>][] = [];
  for (const runId of r.replayedRuns) {
    const audit = await h.baton.audit(r.id, runId).catch(() => undefined);
    if (audit) out.push([runId, exportAudit(audit)]);
  }
  return out;
}

async function auditMatchesResult(h: Harness, r: RootModel): Promise<void> {
  if (r.status !== 'completed') return;
  const [audit, result] = await Promise.all([
    auditOf(h, r),
    h.baton
      .getRun(r.id)
      .result()
      .catch(() => undefined),
  ]);
  if (!audit || !result) return;
  if (audit.status !== 'completed')
    broken(h, 'audit-matches-result', `${r.id}: the audit says ${audit.status}, the chain completed`);
  if (!isDeepStrictEqual(audit.handoffs, result.handoffChain))
    broken(
      h,
      'audit-matches-result',
      `${r.id}: audit handoffs ${clip(audit.handoffs.map((x) => `${x.from}→${x.to}`))} ≠ result ${clip(result.handoffChain.map((x) => `${x.from}→${x.to}`))}`,
    );
  if (!isDeepStrictEqual(audit.result?.output, result.output))
    broken(
      h,
      'audit-matches-result',
      `${r.id}: audit output ${clip(audit.result?.output)} ≠ result ${clip(result.output)}`,
    );
}

/** The histories of every run of `r` (and of its specialists, through the audit's children). */
async function taskFailures(h: Harness, r: RootModel): Promise<void> {
  const ids: { workflowId: string; runId: string }[] = [];
  if (r.kind === 'chain') {
    const audit = await auditOf(h, r);
    const walk = (a: AuditChain) => {
      for (const runId of a.runIds) ids.push({ workflowId: a.workflowId, runId });
      for (const c of a.children ?? []) walk(c);
    };
    if (audit) walk(audit);
  } else {
    const audit = await h.baton
      .conversation(r.agent, { id: r.id })
      .audit()
      .catch(() => undefined);
    for (const runId of audit?.runIds ?? []) ids.push({ workflowId: r.id, runId });
  }
  for (const { workflowId, runId } of ids) {
    const events = (await historyOf(h.system.client, workflowId, runId)).events ?? [];
    const timeout = events[0]?.workflowExecutionStartedEventAttributes?.workflowTaskTimeout;
    if (Number(timeout?.seconds ?? 0) !== WORKFLOW_TASK_SECONDS)
      broken(
        h,
        'task-timeout',
        `${workflowId} run ${runId}: started with a workflow task timeout of ${String(timeout?.seconds)} s, not baton's ${WORKFLOW_TASK_SECONDS} s`,
      );
    for (const e of events) {
      const failed = e.workflowTaskFailedEventAttributes;
      if (failed && !isRoutine(failed.cause))
        broken(
          h,
          'no-failed-tasks',
          `${workflowId} run ${runId}: workflow task failed (event ${String(e.eventId)}, ${failed.cause === null || failed.cause === undefined ? 'no cause' : causeName(failed.cause)}): ${clip(failed.failure?.message, 300)}`,
        );
    }
  }
}

/**
 * The latest run's start input keeps the root's context and options: the options it started with,
 * and, in the state a continued run carries and the overrides that run applied, those with every
 * override the root took.
 */
async function optionsSurvive(h: Harness, r: RootModel): Promise<void> {
  const events = (await historyOf(h.system.client, r.id)).events ?? [];
  const input = fromPayloads<HandoffRunInput & ConversationInput>(
    events[0]?.workflowExecutionStartedEventAttributes?.input,
  );
  if (!input) return broken(h, 'options-survive', `${r.id}: its latest run has no input`);
  const replayed = r.replays > 0 ? ` (replayed ${r.replays} time(s))` : '';
  if (!isDeepStrictEqual(input.context, r.context))
    broken(
      h,
      'options-survive',
      `${r.id}${replayed}: its latest run has context ${clip(input.context)}, not ${clip(r.context)}`,
    );
  const same = (what: string, actual: RunOptions | undefined, wanted: RunOptions) => {
    const now = resolveRunOptions(actual) as Record<string, unknown>;
    const expected = resolveRunOptions(wanted) as Record<string, unknown>;
    for (const k of Object.keys(wanted))
      if (!isDeepStrictEqual(now[k], expected[k]))
        broken(
          h,
          'options-survive',
          `${r.id}: option ${k} is ${clip(now[k])} in its latest run's ${what}, not ${clip(expected[k])}`,
        );
  };
  same('options', input.options, r.startOptions);
  const carried =
    r.kind === 'chain'
      ? (input.resume as { options?: RunOptions } | undefined)?.options
      : (input.resume as { chain?: { options?: RunOptions } } | undefined)?.chain?.options;
  // Overrides the latest run applied itself are in its history, not in the state it started with.
  const since = events
    .map(recordedApprovalEvent)
    .filter((e) => e?.type === 'overrides_applied')
    .map((e) => (e!.options ?? {}) as RunOptions);
  if (carried)
    same('carried state and the overrides that run applied', Object.assign({}, carried, ...since), r.options);
  if (r.kind === 'conversation' && !isDeepStrictEqual(input.conversation, r.conversation))
    broken(
      h,
      'options-survive',
      `${r.id}: conversation options ${clip(input.conversation)}, not ${clip(r.conversation)}`,
    );
}

/** Each root the end invariants judge (of `kind`): those a known defect left running apart. */
function each(h: Harness, check: (h: Harness, r: RootModel) => Promise<void>, kind?: RootModel['kind']): Promise<void> {
  return Promise.all(
    h.model.roots.filter((r) => !r.abandoned && (kind === undefined || r.kind === kind)).map((r) => check(h, r)),
  ).then(() => undefined);
}

export const endInvariants: Invariant[] = [
  { name: 'export-verifies', when: 'end', check: (h) => each(h, exportVerifies, 'chain') },
  { name: 'audit-matches-result', when: 'end', check: (h) => each(h, auditMatchesResult, 'chain') },
  // Also `task-timeout`: each run it reads started with baton's workflow task timeout.
  { name: 'no-failed-tasks', when: 'end', check: (h) => each(h, taskFailures) },
  { name: 'follower-text', when: 'end', check: (h) => each(h, followerText) },
  { name: 'options-survive', when: 'end', check: (h) => each(h, optionsSurvive) },
];
