/**
 * The client: {@link Baton} starts chains and conversations, lists and decides what waits for
 * approval, reads audits, replays, overrides and steers chains, from your own service.
 */
import type { Client } from '@temporalio/client';
import type { handoffRun } from '../../workflows/handoffRun';
import type { AuditChain } from '../audit/chain';
import { auditRun } from '../audit/fetch';
import { InputTooLargeError, UserError } from '../common/errors';
import { overrideProblems } from '../common/input';
import type { SteerReceipt } from '../common/live';
import { DEFAULT_TASK_QUEUE, overrideRunSignal, WorkflowType } from '../common/messages';
import { overrideSizes } from '../common/sizes';
import { type ApprovalRecord, type RunOverrides } from '../common/types';
import { streamsFromEnv } from '../streams/env';
import type { StreamTransport } from '../streams/types';
import { Conversation } from './conversation';
import type { ConversationStartOptions } from './conversationStart';
import { applyTeamPolicy, type ApplyPolicyOptions, type PolicyApplied } from './policy';
import type { TeamSpec } from '../common/team';
import {
  type ConversationReplayed,
  type ConversationReplayOptions,
  migrateConversation,
  replayConversation,
} from './conversationReplay';
import type { ConversationMigration } from '../common/stranded';
import { decideApproval } from './decide';
import { type AnswerOptions, type ApprovalQuestion, type AskOptions, sendQuestion } from './questions';
import { BatonEconomics } from './economics';
import { Experiments } from './experiments';
import type { DecisionOptions, PendingHandoff } from './pending';
import { replayChain, type ReplayOptions, type ReplayStarted } from './replay';
import { chainStart, type StartOptions } from './chainStart';
import { BatonRun, type RunResult } from './run';
import { TeamSnapshots } from './sensitive';
import { steerChain, type SteerOptions } from './steer';
import { listPending, type PendingOptions } from './waiting';
import { listInbox, type InboxOptions, type InboxPage } from './inbox';
import { type BatchDecision, type BatchOutcome, decideBatch } from './batch';

export { toBatonError } from './decide';
export type { DecisionOptions, PendingHandoff, PendingToolCall } from './pending';
export type { InboxItem, InboxOptions, InboxPage } from './inbox';
export type { BatchDecision, BatchItem, BatchOutcome } from './batch';

/** Options of {@link Baton}. */
export interface BatonOptions {
  /** A connected Temporal client. */
  client: Client;
  /** @default "baton" */
  taskQueue?: string;
  /**
   * Where `run.stream()` and `chat.stream()` read model text as it forms: the transport the workers publish to.
   * @default Redis Streams at `BATON_STREAMS_URL` when set, else this process's in-process transport
   */
  streams?: StreamTransport;
}

/**
 * Start and follow chains from your own service.
 * @example
 * const baton = new Baton({ client: new Client({ connection: await Connection.connect() }) });
 * const { output, handoffChain } = await baton.run('triage', 'I want a refund for order 42');
 */
export class Baton {
  readonly client: Client;
  readonly taskQueue: string;
  readonly streams: StreamTransport;
  /** Experiments: start, read and stop them; `start(…, {experiment})` puts a chain in one. */
  readonly experiments: Experiments;

  constructor(options: BatonOptions) {
    this.client = options.client;
    this.taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.streams = options.streams ?? streamsFromEnv();
    this.experiments = new Experiments(this.client, this.taskQueue);
  }

  /** Start a chain at `agent`; invalid input or options throw `InvalidRunInputError` before anything starts. */
  async start<Output = string>(agent: string, input: string, options: StartOptions = {}): Promise<BatonRun<Output>> {
    const start = await chainStart(this.experiments, this.taskQueue, agent, input, options);
    const handle = await this.client.workflow.start<typeof handoffRun>(WorkflowType.HANDOFF_RUN, start);
    return new BatonRun<Output>(handle, this.streams);
  }

  /** Run a chain to its answer; `Output` is the final agent's `outputType` when it has one. */
  async run<Output = string>(agent: string, input: string, options: StartOptions = {}): Promise<RunResult<Output>> {
    return (await this.start<Output>(agent, input, options)).result();
  }

  /**
   * A conversation with the team, starting at `agent` (the `conversation` workflow): `send` a
   * message for its reply, read its `history`, `end` it. The same `id` goes on with an existing
   * conversation, from this process or any other.
   * @example
   * const chat = baton.conversation('triage', { id: 'support-c-7' });
   * console.log((await chat.send('Where is order 42?')).output);
   */
  conversation<Output = string>(agent: string, options: ConversationStartOptions = {}): Conversation<Output> {
    return new Conversation<Output>(this.client, this.taskQueue, agent, options, this.streams);
  }

  /** What chains share: the shared circuit breakers (list, reset) and the spend ledgers. */
  get economics(): BatonEconomics {
    return new BatonEconomics(this.client);
  }

  /** A chain started earlier, by this client or any other. */
  getRun<Output = string>(workflowId: string): BatonRun<Output> {
    return new BatonRun<Output>(this.client.workflow.getHandle<typeof handoffRun>(workflowId), this.streams);
  }

  /**
   * Every handoff and tool call waiting for approval across all chains, oldest first (a visibility
   * query, no workflow scan). A tool call's sensitive arguments show as `"[redacted]"` unless
   * `reveal` names who may see them (the chain's team snapshot, read once per run, says which are).
   */
  pending(options: PendingOptions = {}): Promise<PendingHandoff[]> {
    return listPending(this.client, () => (this.#teams ??= new TeamSnapshots(this.client)), options);
  }

  #teams?: TeamSnapshots;

  /**
   * What waits for `options.for` (a person and their groups), soonest due first, filtered and paged:
   * one visibility query over baton's approval search attributes, no query per chain.
   * @example const { approvals, nextPageToken } = await baton.inbox({ for: ['alice', 'finance'], tool: 'refund', overdue: true })
   */
  inbox(options: InboxOptions = {}): Promise<InboxPage> {
    return listInbox(this.client, () => (this.#teams ??= new TeamSnapshots(this.client)), options);
  }

  /** Approve or reject several similar waiting calls together: each its own decision, bound to its own call; an outcome per approval. */
  decideBatch(batch: BatchDecision): Promise<BatchOutcome[]> {
    return decideBatch(
      {
        pendingIn: (id) => this.getRun(id).pendingApprovals(),
        decide: (id, decision, options) => this.decide(id, decision, options as unknown as DecisionOptions, undefined),
      },
      batch,
    );
  }

  /**
   * Approve a waiting handoff or tool call and get the outcome. `approvalId` (in the options, or
   * second) names it; without one, the chain's only waiting approval. A tool call may be approved
   * with edited `arguments`. A decision that cannot apply throws `ApprovalRefusedError` naming the problem.
   * @example await baton.approve(workflowId, { approvalId: waiting.approvalId, approver: 'alice', comment: 'ok' })
   */
  approve(workflowId: string, options: DecisionOptions): Promise<ApprovalRecord>;
  approve(workflowId: string, approvalId: string | undefined, options: DecisionOptions): Promise<ApprovalRecord>;
  approve(
    workflowId: string,
    idOrOptions: string | undefined | DecisionOptions,
    options?: DecisionOptions,
  ): Promise<ApprovalRecord> {
    return this.decide(workflowId, 'approve', idOrOptions, options);
  }

  /** Reject a waiting handoff or tool call; its agent is told who rejected it and why, and goes on. */
  reject(workflowId: string, options: DecisionOptions): Promise<ApprovalRecord>;
  reject(workflowId: string, approvalId: string | undefined, options: DecisionOptions): Promise<ApprovalRecord>;
  reject(
    workflowId: string,
    idOrOptions: string | undefined | DecisionOptions,
    options?: DecisionOptions,
  ): Promise<ApprovalRecord> {
    return this.decide(workflowId, 'reject', idOrOptions, options);
  }

  /**
   * The chain rebuilt from its workflow history alone, across continue-as-new runs: the latest run
   * of `workflowId`, or the run `runId` (a run that was replayed names the run that continued it).
   */
  audit(workflowId: string, runId?: string): Promise<AuditChain> {
    return auditRun(this.client, workflowId, runId);
  }

  /**
   * Continue a failed chain from its last good step (or from just before handoff N) in a new run
   * of the same workflow id, without calling the model or running tools again for the steps before
   * that point. `overrides` change limits, other run options and models from there on.
   * @example
   * const { runId } = await baton.replay(workflowId, { overrides: { options: { maxHandoffs: 20 } } });
   * const result = await baton.getRun(workflowId).result();
   */
  replay(workflowId: string, options: ReplayOptions = {}): Promise<ReplayStarted> {
    return replayChain(this.client, workflowId, options);
  }

  /**
   * Move a running conversation onto the team the workers run now: a turn stranded by a deploy
   * (its callers got `TurnStrandedError`) goes on from its last step on the current team, the
   * approvals given in it standing; between turns, the next turn takes the current team.
   * @example const { from, to } = await baton.migrateConversation('support-c-7');
   */
  migrateConversation(workflowId: string): Promise<ConversationMigration> {
    return migrateConversation(this.client, workflowId);
  }

  /**
   * `baton replay [--on-current-team]` for a conversation: a running one moves onto the current team
   * (`onCurrentTeam`, as {@link Baton.migrateConversation}); one whose run failed continues in a new
   * run from the state that run was handed (onto the current team too with `onCurrentTeam`).
   */
  replayConversation(workflowId: string, options: ConversationReplayOptions = {}): Promise<ConversationReplayed> {
    return replayConversation(this.client, workflowId, options);
  }

  /**
   * Apply `team`'s approval policies to every chain and conversation running on this task queue
   * under a looser one (`tightenPolicy`); each chain refuses what would loosen it. See also `policyStandings`.
   * @example const applied = await baton.applyPolicy(team.spec(), { appliedBy: 'ops:alice' })
   */
  applyPolicy(team: TeamSpec, options: Omit<ApplyPolicyOptions, 'taskQueue'>): Promise<PolicyApplied[]> {
    return applyTeamPolicy(this.client, team, { ...options, taskQueue: this.taskQueue });
  }

  /**
   * Change a running chain's options or models from its next step on (the `overrideRun` signal).
   * Bad overrides throw here; overrides naming an agent the chain's team lacks are refused by the
   * run and the refusal is in its audit.
   * @example await baton.override(workflowId, { options: { maxHandoffs: 20 }, models: { writer: openai('gpt-4o') } })
   */
  async override(workflowId: string, overrides: RunOverrides): Promise<void> {
    const sizes = overrideSizes(overrides);
    if (sizes.length > 0) throw new InputTooLargeError(sizes);
    const problems = overrideProblems(overrides);
    if (problems.length > 0) throw new UserError(`Invalid overrides: ${problems.join('; ')}`);
    await this.getRun(workflowId).handle.signal(overrideRunSignal, overrides);
  }

  /**
   * Add a user message to a running chain (or a conversation's running turn), applied at its next
   * step and recorded with who sent it. A chain that cannot take it throws `SteeringRefusedError`.
   * @example await baton.steer(workflowId, 'Only cover European otters.', { by: 'alice' })
   */
  steer(workflowId: string, text: string, options: SteerOptions): Promise<SteerReceipt> {
    return steerChain(this.client, workflowId, { text, by: options?.by });
  }

  /**
   * Stop the answer a chain's model is writing, without cancelling the chain: the call stops at
   * once (its text is dropped) and the model is asked again with `text` as a user message.
   * @example await baton.interrupt(workflowId, 'Stop: answer in one sentence.', { by: 'alice' })
   */
  interrupt(workflowId: string, text: string, options: SteerOptions): Promise<SteerReceipt> {
    return steerChain(this.client, workflowId, { text, by: options?.by, interrupt: true });
  }

  /** Ask about a waiting approval instead of deciding it (request-info); it waits on for the answer. `QuestionRefusedError` when that cannot apply. */
  ask(workflowId: string, options: AskOptions): Promise<ApprovalQuestion> {
    return sendQuestion((id) => this.getRun(id), workflowId, 'ask', options);
  }
  /** Answer the open question about a waiting approval; it waits on for a decision, the answer attached. */
  answer(workflowId: string, options: AnswerOptions): Promise<ApprovalQuestion> {
    return sendQuestion((id) => this.getRun(id), workflowId, 'answer', options);
  }

  private decide(
    workflowId: string,
    decision: 'approve' | 'reject',
    idOrOptions: string | undefined | DecisionOptions,
    given: DecisionOptions | undefined,
  ): Promise<ApprovalRecord> {
    return decideApproval((id) => this.getRun(id), workflowId, decision, idOrOptions, given);
  }
}
