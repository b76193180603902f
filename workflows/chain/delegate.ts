/**
 * Delegation: the turn's tasks for specialists run as child `handoffRun` chains (several at once,
 * up to `maxParallelDelegations`), each with its own limits and history; their answers come back
 * to the caller as tool results and the turn goes on. While they run, the chain keeps applying
 * what arrives (decisions, reports of approvals waiting in the children).
 */
import { durationMs } from '../../src/common/check';
import { readDelegation, SPECIALIST_DELEGATE_TOOL_NAME, type DelegationRequest } from '../../src/common/delegation';
import { DelegationFailedError } from '../../src/common/errors';
import { DelegationDepthExceededError } from '../../src/common/modelBehaviorErrors';
import { Patches } from '../../src/common/patches';
import type { ToolCall } from '../../src/common/model';
import { RUN_OPTIONS, type RunOptions } from '../../src/common/options';
import type { HandoffRunInput } from '../../src/common/run';
import type { AgentSpec } from '../../src/common/team';
import type { ChainState } from '../../src/common/state';
import { fromMicros, toMicros } from '../../src/common/economics/prices';
import { spentMicros } from './costs';
import type { DelegationOutcome } from './effects';
import { continueTurn } from './respond';
import { routeToSpecialist } from './routing';
import { hasPatch } from '../patches';
import { admitTarget, noteFailure, noteSuccess, retried } from './controls';
import { deadlineOf } from './controlState';
import { currentAgent } from './state';
import type { ChainRun, Step } from './step';
import { contextVariables, render } from './transfer';
import { delegateRemote, RemoteWaits } from './remote';

/** What a specialist gets as its input: the task and the caller's situation (Jazz's rich context). */
export const DELEGATION_INPUT = [
  'Task from {{from}}: {{task}}',
  'Why you: {{reason}}',
  'Context: {{context}}',
  'Capabilities needed: {{capabilities}}',
  'Original request: {{request}}',
  'Work done so far:\n{{completedWork}}',
  'Recent conversation:\n{{recentHistory}}',
  'Correlation id: {{correlationId}}',
  'Answer with the result of the task; the agent who asked will take it from there.',
].join('\n');

type Job = { call: ToolCall; request: DelegationRequest; workflowId: string } | { call: ToolCall; answer: string };

/** Run the turn's delegations, then go on with the turn. */
export async function delegateStep(run: ChainRun, step: Extract<Step, { kind: 'delegate' }>): Promise<Step> {
  const agent = currentAgent(run.chain.state);
  const jobs: Job[] = [];
  for (const call of step.plan.delegations) jobs.push(await plan(run, agent, call, step.calls.indexOf(call)));
  const started = jobs.flatMap((j) => ('request' in j ? [j] : []));
  const outcomes = await runAll(run, started);
  const results = new Map(step.results);
  for (const j of jobs) if ('answer' in j) results.set(j.call.id, j.answer);
  const failed = outcomes.filter((o) => !o.ok).length;
  started.forEach((job, i) => settle(run, job.request.to, outcomes[i]!));
  started.forEach((job, i) => {
    const outcome = outcomes[i]!;
    const options = agent.delegateOptions?.[job.request.to];
    if (!outcome.ok && options?.onFailure === 'fail')
      throw new DelegationFailedError(agent.id, job.request.to, outcome.reason);
    const joined =
      run.chain.state.options.delegationJoin === 'all' && failed > 0
        ? `The joined delegation failed: ${failed} of ${started.length} tasks failed. `
        : '';
    results.set(job.call.id, joined + answerOf(job.request.to, outcome));
  });
  return continueTurn(run, { ...step, results: [...results] });
}

/** A specialist's end on the record: its usage joins the chain's, and its breaker counts the success or the failure. */
function settle(run: ChainRun, to: string, outcome: DelegationOutcome): void {
  if (!run.chain.state.controls) return;
  const result = outcome.ok ? outcome.result : undefined;
  run.chain.apply({
    type: 'delegation_ended',
    agent: to,
    ok: outcome.ok,
    ...(result ? { usage: result.usage, ...(result.usageByAgent ? { usageByAgent: result.usageByAgent } : {}) } : {}),
  });
  if (outcome.ok) noteSuccess(run, to);
  else noteFailure(run, to, `delegation failed: ${outcome.reason}`);
}

/** What a delegation call asks for: a child to start, or the answer the model gets instead. */
async function plan(run: ChainRun, agent: AgentSpec, call: ToolCall, index: number): Promise<Job> {
  const { chain, effects } = run;
  const depth = (chain.state.parent?.depth ?? 0) + 1;
  const limit = chain.state.options.maxDelegationDepth;
  if (depth > limit)
    return {
      call,
      answer: `Error: ${new DelegationDepthExceededError(agent.id, depth, limit).message}. Do the task yourself.`,
    };
  let request: DelegationRequest;
  if (call.name === SPECIALIST_DELEGATE_TOOL_NAME) {
    const routed = await routeToSpecialist(run, agent, call);
    if (routed.kind === 'answer') return { call, answer: routed.answer };
    const r = routed.request;
    request = {
      from: agent.id,
      to: routed.to,
      task: r.task,
      reason: r.reason,
      ...(r.context ? { context: r.context } : {}),
      requiredCapabilities: r.requiredCapabilities,
    };
  } else {
    const read = readDelegation(call, agent.id);
    if (typeof read === 'string') return { call, answer: `Error: ${read}` };
    if (
      !(agent.delegates ?? []).includes(read.to) ||
      (!chain.state.team.agents[read.to] && !chain.state.team.remotes?.[read.to])
    ) {
      return {
        call,
        answer: `Error: "${read.to}" is not one of your specialists. Call ${call.name} again with one of: ${(agent.delegates ?? []).join(', ')}`,
      };
    }
    request = read;
  }
  const verdict = run.guards.beforeDelegation(chain.state, request.to);
  if (retried(run, verdict)) return { call, answer: verdict.message };
  const shared = await run.economy?.beforeTarget(run, agent.id, request.to, 'delegated');
  if (shared && retried(run, shared)) return { call, answer: shared.message };
  admitTarget(run, request.to);
  return { call, request, workflowId: `${effects.workflowId}/${request.to}-${chain.state.turns}.${index + 1}` };
}

/**
 * Start the children (or send the tasks of remote agents), at most `maxParallelDelegations` at
 * once, and wait for all of them while applying what arrives.
 */
async function runAll(
  run: ChainRun,
  jobs: Extract<Job, { request: DelegationRequest }>[],
): Promise<DelegationOutcome[]> {
  const { chain, effects, desk } = run;
  const limit = chain.state.options.maxParallelDelegations;
  const outcomes: DelegationOutcome[] = new Array(jobs.length);
  let next = 0;
  let running = 0;
  let finished = 0;
  let broken: unknown;
  const waits = new RemoteWaits(run);
  const launch = () => {
    while (running < limit && next < jobs.length) {
      const i = next++;
      running++;
      const job = jobs[i]!;
      const remote = chain.state.team.remotes?.[job.request.to] !== undefined;
      const token = remote ? undefined : desk.specialists.enrol(job.workflowId);
      (remote
        ? delegateRemote(run, { ...job, text: taskText(run, job) }, waits, timeoutOf(run, job.request.to).timeoutMs)
        : effects.delegate({
            workflowId: job.workflowId,
            input: childInput(run, job, token),
            ...timeoutOf(run, job.request.to),
          })
      ).then(
        (outcome) => {
          outcomes[i] = outcome;
          running--;
          finished++;
          if (!remote) desk.childEnded(job.workflowId);
          launch();
        },
        (err: unknown) => {
          broken ??= err;
          finished++;
        },
      );
    }
  };
  launch();
  while (finished < jobs.length) {
    await effects.condition(() => finished === jobs.length || desk.hasMail);
    await desk.drain();
  }
  if (broken !== undefined) throw broken;
  return outcomes;
}

function childInput(
  run: ChainRun,
  job: Extract<Job, { request: DelegationRequest }>,
  token: string | undefined,
): HandoffRunInput {
  const { state } = run.chain;
  const { request } = job;
  const options = currentAgent(state).delegateOptions?.[request.to] ?? {};
  const childOptions: RunOptions = {
    maxDelegationDepth: state.options.maxDelegationDepth,
    ...childBudgets(run),
    ...childCostBudget(state, options.maxCost),
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
    ...(options.maxHandoffs !== undefined ? { maxHandoffs: options.maxHandoffs } : {}),
    // A specialist works at its caller's priority, for the same tenant.
    ...(state.options.priority ? { priority: state.options.priority } : {}),
    ...(state.options.tenant !== undefined ? { tenant: state.options.tenant } : {}),
    // A specialist's decisions are signed and checked as the chain's own are.
    ...(state.options.requireSignature ? { requireSignature: true } : {}),
    ...(state.options.approverKeys ? { approverKeys: state.options.approverKeys } : {}),
    // A specialist waits for a worker of its team no longer than its caller would (a caller on the default records no marker).
    ...(state.options.teamMismatchTimeout !== RUN_OPTIONS.teamMismatchTimeout.default &&
    hasPatch(Patches.SPECIALIST_TEAM_TIMEOUT)
      ? { teamMismatchTimeout: state.options.teamMismatchTimeout }
      : {}),
  };
  const input = taskText(run, job);
  const root = state.parent?.rootWorkflowId ?? run.effects.workflowId;
  // A specialist's text joins the stream of the conversation turn its caller answers.
  const tag = run.effects.streamTag?.();
  const turn = tag
    ? {
        ...(tag.turn !== undefined ? { turn: tag.turn } : {}),
        ...(tag.message !== undefined ? { message: tag.message } : {}),
      }
    : {};
  return {
    agent: request.to,
    input,
    options: childOptions,
    ...(state.context ? { context: state.context } : {}),
    parent: {
      workflowId: run.effects.workflowId,
      rootWorkflowId: root,
      depth: (state.parent?.depth ?? 0) + 1,
      ...(token ? { token } : {}),
      ...(state.team.version ? { team: { id: state.team.version.id, hash: state.team.version.hash } } : {}),
      ...turn,
    },
  };
}

/** The task as the specialist reads it: the caller's request and situation (Jazz's rich context). */
function taskText(run: ChainRun, job: Extract<Job, { request: DelegationRequest }>): string {
  const { request } = job;
  return render(DELEGATION_INPUT, {
    ...contextVariables(run.chain.state),
    from: request.from,
    task: request.task,
    reason: request.reason,
    context: request.context,
    capabilities: request.requiredCapabilities?.join(', '),
    correlationId: job.workflowId,
  });
}

/** What is left of the chain's token budget and its deadline, for a specialist's chain (which counts toward both). */
function childBudgets(run: ChainRun): RunOptions {
  const { state } = run.chain;
  if (!state.controls) return {};
  const { maxTokens } = state.options;
  const deadline = deadlineOf(state);
  return {
    ...(maxTokens > 0 ? { maxTokens: Math.max(1, maxTokens - state.usage.totalTokens) } : {}),
    ...(deadline !== undefined ? { deadline: new Date(deadline).toISOString() } : {}),
  };
}

/**
 * A specialist's `maxCost`: the least of the caller's `maxCost` left over, its conversation's, and
 * the delegation's own. A budget already spent is refused before the delegation (`costGuard`).
 */
function childCostBudget(state: ChainState, own: number | undefined): RunOptions {
  if (!state.economics) return {};
  const spent = spentMicros(state);
  const conversation = state.economics.conversation;
  const left = [
    ...(state.options.maxCost > 0 ? [toMicros(state.options.maxCost) - spent] : []),
    ...(conversation && conversation.limitMicros > 0
      ? [conversation.limitMicros - conversation.spentMicros - spent]
      : []),
    ...(own !== undefined ? [toMicros(own)] : []),
  ];
  return left.length > 0 ? { maxCost: fromMicros(Math.max(1, Math.min(...left))) } : {};
}

function timeoutOf(run: ChainRun, to: string): { timeoutMs?: number } {
  const timeout = currentAgent(run.chain.state).delegateOptions?.[to]?.timeout;
  if (timeout === undefined) return {};
  const ms = durationMs(timeout);
  return ms === undefined ? {} : { timeoutMs: ms };
}

function answerOf(to: string, outcome: DelegationOutcome): string {
  if (!outcome.ok)
    return `The task delegated to ${to} failed: ${outcome.reason}. Decide how to go on: try another way or another specialist, or answer with what you have.`;
  const output = outcome.result.output;
  return `Answer from ${to}: ${typeof output === 'string' ? output : JSON.stringify(output)}`;
}
