/**
 * `runEval`: a candidate team against recorded chains, as an `evalRun` workflow on the server,
 * served by an eval worker in this process and followed case by case. Started again with the same
 * `evalId`, it goes on with the run where it was (a case that is done stays done), or, when the
 * run is over, answers with its report.
 */
import { randomUUID } from 'node:crypto';
import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { Team } from '../agents/team';
import { UserError } from '../common/errors';
import type { ModelSpec } from '../common/model';
import { runOptionProblems, type RunOptions } from '../common/options';
import type { McpWorkerOptions } from '../mcp/tools';
import type { ModelProviders } from '../models/provider';
import { decodeHistory } from '../payloads/history';
import { fromPayloads } from '../payloads/read';
import { EvalWorkflowType, evalProgressQuery, evalTaskQueue, MAX_EVAL_CASES } from '../common/eval/messages';
import { isNotFound } from './store';
import { DEFAULT_THRESHOLD, parseThreshold, withThreshold } from '../common/eval/summary';
import {
  type EvalCaseReport,
  type EvalCaseSpec,
  type EvalReport,
  type EvalRunInput,
  type ResolvedEvalOptions,
  type ThresholdRule,
  ToolMode,
} from '../common/eval/types';
import { createEvalWorker } from './worker';
import { historyOf } from '../payloads/historyPages';

/** Options of {@link runEval}. */
export interface EvalOptions {
  /** A connected client: it starts the eval and reads the recorded chains. */
  client: Client;
  /** The eval worker's connection. */
  connection: NativeConnection;
  /** The candidate team. */
  team: Team;
  /** The cases (see `evalCases`). */
  cases: EvalCaseSpec[];
  /** The eval run's workflow id: give an earlier run's to go on with it. @default `eval-<uuid>` */
  evalId?: string;
  /** Cases running at once. @default 4 */
  concurrency?: number;
  /** How tools answer the candidate: `recorded` (the record's result of the same call, else not run) or `live`. @default "recorded" */
  tools?: ToolMode;
  /** Tools run for real when the record has no result for the call (with `tools: 'recorded'`). @default none */
  liveTools?: string[];
  /** An approval the record has no decision for. @default "approve" */
  approvals?: 'approve' | 'reject';
  /** The LLM judge of cases with a rubric (`rubric` here applies to every case). */
  judge?: { model: ModelSpec; rubric?: string; pass?: number };
  /** Run options every candidate chain starts with, over the recorded ones. */
  runOptions?: RunOptions;
  /** When the eval fails, e.g. `"regressions<=0,route>=0.9"`. @default no regressions */
  threshold?: ThresholdRule[] | string;
  /** Model providers beside `openai` and `scripted`. */
  providers?: ModelProviders;
  /** The candidate's MCP servers. */
  mcp?: McpWorkerOptions;
  /** Told each case's report as it is done (and, for a run that was over, each case of its report). */
  onCase?: (report: EvalCaseReport, progress: { done: number; total: number }) => void;
  /** Told once the run is started or found. */
  onStart?: (info: { evalId: string; total: number; resumed: boolean }) => void;
  /** How often the run's progress is read, in ms. @default 500 */
  pollMs?: number;
  /** Stop following (the worker shuts down; the eval goes on in Temporal, for a later call with its `evalId`). */
  signal?: AbortSignal;
}

/** An eval's options or cases that cannot run. */
export class InvalidEvalInputError extends UserError<{ problems: string[] }> {
  constructor(problems: string[]) {
    super(`Invalid eval: ${problems.join('; ')}`, { problems });
  }
}

/** The options an `evalRun` records, with their defaults. */
export function resolveEvalOptions(o: Partial<EvalOptions>): ResolvedEvalOptions {
  const problems: string[] = [];
  const concurrency = o.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 100)
    problems.push(`concurrency must be a whole number from 1 to 100, got ${JSON.stringify(o.concurrency)}`);
  const tools = o.tools ?? ToolMode.RECORDED;
  if (tools !== ToolMode.RECORDED && tools !== ToolMode.LIVE)
    problems.push(`tools must be "recorded" or "live", got ${JSON.stringify(o.tools)}`);
  const approvals = o.approvals ?? 'approve';
  if (approvals !== 'approve' && approvals !== 'reject')
    problems.push(`approvals must be "approve" or "reject", got ${JSON.stringify(o.approvals)}`);
  if (o.runOptions !== undefined) problems.push(...runOptionProblems(o.runOptions, 'runOptions'));
  const pass = o.judge?.pass ?? 0.5;
  if (o.judge && (typeof pass !== 'number' || pass < 0 || pass > 1))
    problems.push(`judge.pass must be a number from 0 to 1, got ${JSON.stringify(o.judge.pass)}`);
  let threshold = DEFAULT_THRESHOLD;
  try {
    if (o.threshold !== undefined)
      threshold = typeof o.threshold === 'string' ? parseThreshold(o.threshold) : o.threshold;
  } catch (err) {
    problems.push((err as Error).message);
  }
  if (problems.length > 0) throw new InvalidEvalInputError(problems);
  return {
    concurrency,
    tools,
    liveTools: o.liveTools ?? [],
    approvals,
    ...(o.judge
      ? { judge: { model: o.judge.model, ...(o.judge.rubric !== undefined ? { rubric: o.judge.rubric } : {}), pass } }
      : {}),
    ...(o.runOptions ? { runOptions: o.runOptions } : {}),
    threshold,
  };
}

/** Run (or go on with) an eval and answer with its report. */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const { client, team } = options;
  if (options.cases.length === 0) throw new InvalidEvalInputError(['no cases to run']);
  if (options.cases.length > MAX_EVAL_CASES)
    throw new InvalidEvalInputError([
      `${options.cases.length} cases; an eval takes at most ${MAX_EVAL_CASES}: split them`,
    ]);
  const version = team.version;
  const input: EvalRunInput = {
    team: { id: version.id, hash: version.hash },
    cases: options.cases,
    options: resolveEvalOptions(options),
  };
  const evalId = options.evalId ?? `eval-${randomUUID()}`;
  const taskQueue = evalTaskQueue(evalId);
  const existing = await earlierRun(client, evalId);
  if (existing && existing.team.hash !== input.team.hash) {
    throw new InvalidEvalInputError([
      `eval ${evalId} runs team ${existing.team.id} (${existing.team.hash}); this team is ${input.team.id} (${input.team.hash}): give a new eval id to evaluate it`,
    ]);
  }
  const handle = client.workflow.getHandle<(i: EvalRunInput) => Promise<EvalReport>>(evalId);
  let resumed = existing !== undefined;
  try {
    await client.workflow.start<(i: EvalRunInput) => Promise<EvalReport>>(EvalWorkflowType.EVAL_RUN, {
      workflowId: evalId,
      taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    });
  } catch (err) {
    // Over: its report is the answer.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    resumed = true;
  }
  const total = (existing ?? input).cases.length;
  options.onStart?.({ evalId, total, resumed });
  const shown = new Set<number>();
  const show = (reports: EvalCaseReport[]) => {
    for (const r of reports) {
      if (shown.has(r.index)) continue;
      shown.add(r.index);
      options.onCase?.(r, { done: shown.size, total });
    }
  };
  const description = await handle.describe();
  // The threshold is this call's: a run that is over is judged by it too.
  const judged = (report: EvalReport): EvalReport => ({
    ...report,
    summary: withThreshold(report.summary, input.options.threshold),
  });
  if (description.status.name === 'COMPLETED') {
    const report = await handle.result();
    show([...report.cases].sort((a, b) => a.index - b.index));
    return judged(report);
  }
  const worker = await createEvalWorker({
    team,
    client,
    connection: options.connection,
    taskQueue,
    ...(options.providers ? { providers: options.providers } : {}),
    ...(options.mcp ? { mcp: options.mcp } : {}),
  });
  const follow = async (): Promise<EvalReport> => {
    const result = handle.result();
    for (;;) {
      options.signal?.throwIfAborted();
      const ended = await Promise.race([result.then((report) => ({ report })), sleep(options.pollMs ?? 500)]);
      const progress = await handle.query(evalProgressQuery, 0).catch(() => undefined);
      if (progress) show(progress.reports);
      if (ended) {
        show([...ended.report.cases].sort((a, b) => a.index - b.index));
        return judged(ended.report);
      }
    }
  };
  return worker.runUntil(follow());
}

/** The input of the run under `evalId` that is going on or is over, when there is one (a failed one is started afresh). */
async function earlierRun(client: Client, evalId: string): Promise<EvalRunInput | undefined> {
  try {
    const { status } = await client.workflow.getHandle(evalId).describe();
    if (status.name !== 'RUNNING' && status.name !== 'COMPLETED') return undefined;
    const history = await decodeHistory(
      await historyOf(client, evalId),
      client.options.loadedDataConverter.payloadCodecs,
    );
    const first = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    if (first?.workflowType?.name !== EvalWorkflowType.EVAL_RUN)
      throw new InvalidEvalInputError([
        `${evalId} is a ${first?.workflowType?.name ?? 'different'} workflow, not an eval: give the eval another id`,
      ]);
    return fromPayloads<EvalRunInput>(first.input);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

function sleep(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms));
}
