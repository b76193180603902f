/**
 * One redeploy: chains and conversations wait for people on team v1, then v2 is deployed — beside a
 * draining v1 (Worker Deployments), side by side with it on one task queue, or with v1 gone — and
 * every waiting approval is granted. Counts where each chain ended and whether anyone was asked
 * twice; with v1 gone, each stranded chain must fail with `TeamMismatchError` naming what is missing
 * and complete after an explicit migration onto the current team.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { Baton, type Conversation } from '../../src';
import { TEAM_MEMO, TeamMismatchError } from '../../src/workflow';
import { durationMs } from '../../src/common/check';
import { createWorker } from '../../src/worker';
import { Approver } from './approver';
import { CHAIN_KINDS, redeployTeam, type ChainKind, type TeamVersionName } from './team';
import { setCurrentVersion } from '../deployments';

export const REDEPLOY_MODES = ['drain', 'side_by_side', 'v1_gone'] as const;
export type RedeployMode = (typeof REDEPLOY_MODES)[number];

/** Settings of one redeploy. */
export interface RedeployOptions {
  mode: RedeployMode;
  client: Client;
  connection: NativeConnection;
  /** Chains of each kind waiting when the deploy comes. @default 1 */
  perKind?: number;
  /** Conversations between turns when the deploy comes. @default 1 */
  conversations?: number;
  /** Chains started once v2 is deployed. @default 1 */
  newChains?: number;
  /**
   * The chains' `teamMismatchTimeout` with v1 gone, where every stranded chain waits it out. With v1
   * draining or side by side, where no chain may fail, the chains keep a longer one (2 minutes),
   * nearer baton's default (10 minutes). @default "3 seconds"
   */
  mismatchTimeout?: string;
  /** How long each model answer takes (ms). @default 0 */
  modelDelayMs?: number;
  /** How long the whole redeploy may take before what is left counts as lost (ms). @default 120000 */
  deadlineMs?: number;
}

/** What a redeploy found. */
export interface RedeployReport {
  mode: RedeployMode;
  chains: number;
  completedOnV1: number;
  completedOnV2: number;
  /** Stranded chains that failed with `TeamMismatchError` (then migrated, in `v1_gone`). */
  failedMismatch: number;
  lost: number;
  repeatedApprovals: number;
  approvals: number;
  /** Steps workers refused for a team they lacked (`TeamMismatchError`), each tried again elsewhere or later. */
  refusals: number;
  seconds: number;
  problems: string[];
}

interface Tracked {
  id: string;
  kind: ChainKind | 'conversation' | 'new';
  conversation?: Conversation;
}

export async function redeploy(o: RedeployOptions): Promise<RedeployReport> {
  const started = Date.now();
  const taskQueue = `redeploy-${o.mode}-${randomUUID().slice(0, 8)}`;
  const deployment = o.mode === 'drain' ? `support-${randomUUID().slice(0, 8)}` : undefined;
  const timeout = o.mode === 'v1_gone' ? (o.mismatchTimeout ?? '3 seconds') : '2 minutes';
  const options = { teamMismatchTimeout: timeout };
  const baton = new Baton({ client: o.client, taskQueue });
  const problems: string[] = [];
  const workers = new Map<TeamVersionName, { worker: Worker; running: Promise<void> }>();
  const startWorker = async (v: TeamVersionName) => {
    // Two unversioned workers of one process on one task queue must tell Temporal apart by build id; they stay unversioned.
    const unversioned = {
      workerDeploymentOptions: {
        useWorkerVersioning: false as const,
        version: { deploymentName: 'support', buildId: v },
      },
    };
    const worker = await createWorker({
      team: redeployTeam(v, o.modelDelayMs ?? 0),
      connection: o.connection,
      taskQueue,
      deployment: deployment ? { name: deployment, buildId: v } : false,
      ...(deployment ? {} : { worker: unversioned }),
    });
    workers.set(v, { worker, running: worker.run() });
    if (deployment) await setCurrentVersion(o.client, deployment, v, 'redeploy drill');
  };
  const stopWorker = async (v: TeamVersionName) => {
    const w = workers.get(v);
    if (!w) return;
    workers.delete(v);
    if (w.worker.getState() === 'RUNNING') w.worker.shutdown();
    await w.running;
  };
  const approver = new Approver(baton);
  const deadline = started + (o.deadlineMs ?? 120_000);
  try {
    await startWorker('v1');
    const tracked: Tracked[] = [];
    for (const kind of Object.keys(CHAIN_KINDS) as ChainKind[]) {
      for (let i = 0; i < (o.perKind ?? 1); i++) {
        const { agent, input } = CHAIN_KINDS[kind];
        const run = await baton.start(agent, input, { workflowId: `${taskQueue}-${kind}-${i}`, ...options });
        tracked.push({ id: run.workflowId, kind });
      }
    }
    const chats = Array.from({ length: o.conversations ?? 1 }, (_, i) =>
      baton.conversation('triage', { id: `${taskQueue}-chat-${i}`, options }),
    );
    for (const chat of chats) {
      const first = await chat.send('hello');
      if (!String(first.output).includes('triage v1'))
        problems.push(`${chat.id}: the first turn was answered by ${String(first.output)}, not by v1`);
      tracked.push({ id: chat.id, kind: 'conversation', conversation: chat });
    }
    const waiting = tracked.filter((t) => t.kind !== 'conversation').map((t) => t.id);
    await approver.untilWaiting(waiting, deadline);

    if (o.mode === 'v1_gone') await stopWorker('v1');
    await startWorker('v2');
    if (o.mode === 'side_by_side') {
      // As in a rolling deploy, v1's workers restart beside v2's: the chains they held go to whichever worker asks first.
      await stopWorker('v1');
      await startWorker('v1');
    }
    for (let i = 0; i < (o.newChains ?? 1); i++) {
      const run = await baton.start(CHAIN_KINDS.tool.agent, CHAIN_KINDS.tool.input, {
        workflowId: `${taskQueue}-new-${i}`,
        ...options,
      });
      tracked.push({ id: run.workflowId, kind: 'new' });
    }
    const stopApproving = approver.approveAll(deadline);
    // The next messages come once the deploy is in effect: a chain started after it has its team.
    await Promise.all(tracked.filter((t) => t.kind === 'new').map((t) => untilTeam(baton, t.id, deadline)));
    const second = chats.map((chat) =>
      chat.send('hello again').then(
        (r) => String(r.output),
        (err: unknown) => `failed: ${String(err)}`,
      ),
    );

    const chains = tracked.filter((t) => t.kind !== 'conversation');
    const ends = await Promise.all(chains.map((t) => endOf(baton, t.id, deadline)));
    let failedMismatch = 0;
    const limit = durationMs(timeout)!;
    for (const [i, end] of ends.entries()) {
      if (end.kind !== 'mismatch') continue;
      failedMismatch++;
      const t = chains[i]!;
      if (o.mode !== 'v1_gone')
        problems.push(
          `${t.id} failed with TeamMismatchError with v1 ${o.mode === 'drain' ? 'draining' : 'beside v2'}: ${end.error.message}`,
        );
      if (end.error.missing.length === 0) problems.push(`${t.id}: its TeamMismatchError names nothing missing`);
      if ((end.error.waitedMs ?? 0) > limit + 10_000)
        problems.push(
          `${t.id}: failed ${end.error.waitedMs} ms after its first refusal, past teamMismatchTimeout (${timeout})`,
        );
      await baton.replay(t.id, { onCurrentTeam: true, reason: 'redeploy drill: migrate onto the current team' });
      ends[i] = await endOf(baton, t.id, deadline);
    }
    const replies = await Promise.all(second);
    approver.stop();
    await stopApproving;

    const report: RedeployReport = {
      mode: o.mode,
      chains: tracked.length,
      completedOnV1: 0,
      completedOnV2: 0,
      failedMismatch,
      lost: 0,
      repeatedApprovals: approver.repeated.length,
      approvals: approver.asked,
      refusals: await refusals(o.client, taskQueue),
      seconds: 0,
      problems,
    };
    for (const [i, end] of ends.entries()) {
      const t = chains[i]!;
      if (end.kind !== 'completed') {
        report.lost++;
        problems.push(
          `${t.id} (${t.kind}) ${end.kind === 'mismatch' ? `failed again: ${end.error.message}` : end.kind}`,
        );
        continue;
      }
      const team = await teamOf(baton, t.id);
      if (team === 'support@v1') report.completedOnV1++;
      else if (team === 'support@v2') report.completedOnV2++;
      if (o.mode !== 'v1_gone' && t.kind !== 'new' && team !== 'support@v1')
        problems.push(
          `${t.id} started on v1 but completed on ${team} with v1 ${o.mode === 'drain' ? 'draining' : 'beside v2'}`,
        );
      if (t.kind === 'new' && o.mode !== 'side_by_side' && team !== 'support@v2')
        problems.push(`${t.id} started after the deploy but ran on ${team}`);
    }
    for (const [i, chat] of chats.entries()) {
      const reply = replies[i]!;
      const on = /triage (v\d)/.exec(reply)?.[1];
      if (!on) {
        report.lost++;
        problems.push(`${chat.id}: the turn after the deploy was not answered: ${reply}`);
      } else if (on === 'v1') report.completedOnV1++;
      else report.completedOnV2++;
      if (o.mode === 'drain' && on !== 'v2')
        problems.push(
          `${chat.id}: the turn after the deploy was answered by ${on ?? 'nobody'}, not by the current version`,
        );
    }
    for (const r of approver.repeated) problems.push(`asked twice: ${r}`);
    report.seconds = Math.round((Date.now() - started) / 100) / 10;
    return report;
  } finally {
    approver.stop();
    for (const v of [...workers.keys()]) await stopWorker(v);
  }
}

type End =
  | { kind: 'completed' }
  | { kind: 'mismatch'; error: TeamMismatchError }
  | { kind: 'failed' | 'running'; error?: unknown };

/** How chain `id` ended, waiting for it until `deadline`. */
async function endOf(baton: Baton, id: string, deadline: number): Promise<End> {
  const left = deadline - Date.now();
  if (left <= 0) return { kind: 'running' };
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<End>((resolve) => (timer = setTimeout(() => resolve({ kind: 'running' }), left)));
  const result = baton
    .getRun(id)
    .result()
    .then(
      (): End => ({ kind: 'completed' }),
      (error: unknown): End =>
        error instanceof TeamMismatchError ? { kind: 'mismatch', error } : { kind: 'failed', error },
    );
  try {
    return await Promise.race([result, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Steps refused with `TeamMismatchError` in every run of every chain of the drill (specialists and migrated runs included). */
async function refusals(client: Client, prefix: string): Promise<number> {
  let count = 0;
  for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH "${prefix}"` })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    for (const e of history.events ?? []) {
      const f = e.activityTaskFailedEventAttributes?.failure;
      if ((f?.cause?.applicationFailureInfo ?? f?.applicationFailureInfo)?.type === 'TeamMismatchError') count++;
    }
  }
  return count;
}

/** Wait until chain `id` has taken its team snapshot. */
async function untilTeam(baton: Baton, id: string, deadline: number): Promise<void> {
  while (Date.now() < deadline && !(await teamOf(baton, id))) await new Promise((r) => setTimeout(r, 100));
}

/** The team version a chain's latest run is on, from its memo. */
async function teamOf(baton: Baton, id: string): Promise<string | undefined> {
  const memo = (await baton.client.workflow.getHandle(id).describe()).memo?.[TEAM_MEMO] as { id?: string } | undefined;
  return memo?.id;
}
