/**
 * The handoff loop: deterministic state and transitions of one chain. No I/O here; every side
 * effect is an activity, time is workflow time.
 */
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { log, patched, proxyActivities, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { BatonActivities } from '../activities';
import { modelActivityOptions, resolveRunOptions, toolActivityOptions } from '../src/common/defaults';
import {
  AgentNotFoundError,
  ApprovalTimeoutError,
  BATON_ERROR_TYPES,
  HandoffTargetNotFoundError,
  MaxHandoffsExceededError,
  MaxTurnsExceededError,
  ModelCallFailedError,
  ToolExecutionError,
  UnconsumedScriptStepsError,
} from '../src/common/errors';
import { extractHandoff, type HandoffResult } from '../src/common/handoff';
import { BatonAgent, BatonHandoffs, HANDOFF_MEMO, Patches } from '../src/common/messages';
import type {
  AgentSpec,
  ApprovalRecord,
  ChatMessage,
  HandoffRecord,
  HandoffRunResult,
  LoopState,
  ModelResponse,
  OpenTurn,
  ResolvedRunOptions,
  RunOverrides,
  TeamSpec,
  ToolCall,
  ToolResultRecord,
  Usage,
} from '../src/common/types';
import { resolveApprovalPolicy, type ApprovalDesk } from './approvals';
import { ignoredHandoffResult, planTurn } from './turn';

/** What a model turn leads to. */
type Step =
  | { kind: 'final_output'; output: string }
  | { kind: 'handoff'; handoff: HandoffResult; approval?: ApprovalRecord; toolResults: ToolResultRecord[] }
  | { kind: 'run_again' }
  | { kind: 'paused' };

/** What a handoff call leads to: the tool result the model gets and, when it goes ahead, the handoff. */
interface HandoffOutcome {
  result: string;
  handoff?: HandoffResult;
  approval?: ApprovalRecord;
}

export class HandoffLoop {
  agent: AgentSpec;
  readonly chain: HandoffRecord[];
  readonly usage: Usage;
  /** Model turns in the whole chain, across continue-as-new. */
  turns: number;
  private messages: ChatMessage[];
  private activationTurns: number;
  private invalidHandoffs: number;
  private readonly callCounts: Record<string, number>;
  private openTurn?: OpenTurn;
  /** A model answer to act on before calling the model again (a replay that resumes after it). */
  private pendingResponse?: ModelResponse;
  private readonly continuedRuns: number;

  private constructor(
    private readonly team: TeamSpec,
    private readonly options: ResolvedRunOptions,
    private readonly desk: ApprovalDesk,
    state: Omit<LoopState, 'team' | 'options' | 'approvals'>,
  ) {
    this.agent = this.lookup(state.agentId);
    this.messages = state.messages;
    this.chain = state.chain;
    this.usage = state.usage;
    this.turns = state.turns;
    this.activationTurns = state.activationTurns;
    this.invalidHandoffs = state.invalidHandoffs;
    this.callCounts = state.callCounts;
    this.openTurn = state.openTurn;
    this.pendingResponse = state.pendingResponse;
    this.continuedRuns = state.continuedRuns;
  }

  /** A new chain starting at `agent` with `input`. */
  static start(team: TeamSpec, agent: string, input: string, options: ResolvedRunOptions, desk: ApprovalDesk): HandoffLoop {
    const spec = team.agents[agent];
    if (!spec) throw new AgentNotFoundError(agent, Object.keys(team.agents));
    return new HandoffLoop(team, options, desk, {
      agentId: agent,
      messages: conversationFor(spec, input),
      chain: [],
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, toolCalls: 0 },
      turns: 0,
      activationTurns: 0,
      invalidHandoffs: 0,
      callCounts: {},
      continuedRuns: 0,
    });
  }

  /** The chain as the previous run left it when it continued as new. */
  static resume(state: LoopState, desk: ApprovalDesk): HandoffLoop {
    desk.restore(state.approvals);
    return new HandoffLoop(state.team, state.options, desk, state);
  }

  /** Everything the next run needs, for continue-as-new. */
  snapshot(): LoopState {
    return {
      team: this.team,
      options: this.options,
      agentId: this.agent.id,
      messages: this.messages,
      chain: this.chain,
      usage: this.usage,
      turns: this.turns,
      activationTurns: this.activationTurns,
      invalidHandoffs: this.invalidHandoffs,
      callCounts: this.callCounts,
      ...(this.openTurn ? { openTurn: this.openTurn } : {}),
      approvals: this.desk.snapshot(),
      continuedRuns: this.continuedRuns + 1,
    };
  }

  /** Run turns until an agent answers, or until the run should continue as new (see {@link snapshot}). */
  async run(): Promise<HandoffRunResult | 'continue_as_new'> {
    const pending = this.pendingResponse;
    this.pendingResponse = undefined;
    let step: Step = this.openTurn
      ? await this.finishTurn(this.openTurn)
      : pending
        ? await this.respond(pending)
        : { kind: 'run_again' };
    for (;;) {
      if (step.kind === 'final_output') {
        this.checkScriptsConsumed();
        return { output: step.output, finalAgent: this.agent.id, handoffChain: this.chain, usage: this.usage };
      }
      if (step.kind === 'handoff') await this.handoff(step.handoff, step.toolResults, step.approval);
      if (step.kind === 'paused' || this.shouldContinueAsNew()) return 'continue_as_new';
      step = await this.turn();
    }
  }

  /** Apply the `overrideRun` signal: options from now on, and models by agent. */
  override(o: RunOverrides): void {
    Object.assign(this.options, resolveRunOptions({ ...this.options, ...o.options }));
    for (const [id, model] of Object.entries(o.models ?? {})) {
      const agent = this.team.agents[id];
      if (agent) agent.model = model;
    }
  }

  private shouldContinueAsNew(): boolean {
    const info = workflowInfo();
    const after = this.options.continueAsNewAfterEvents;
    return info.continueAsNewSuggested || (after > 0 && info.historyLength >= after);
  }

  private lookup(id: string): AgentSpec {
    const agent = this.team.agents[id];
    if (!agent) throw new AgentNotFoundError(id, Object.keys(this.team.agents));
    return agent;
  }

  /** Give control to `agent` with `input` as its new conversation. */
  private activate(agent: AgentSpec, input: string): void {
    this.agent = agent;
    this.activationTurns = 0;
    this.messages = conversationFor(agent, input);
  }

  private async turn(): Promise<Step> {
    if (this.activationTurns >= this.options.maxTurns) throw new MaxTurnsExceededError(this.agent.id, this.options.maxTurns);
    this.activationTurns++;
    this.turns++;
    return this.respond(await this.callModel());
  }

  /** Act on a model's answer: run its tools, weigh its handoff, or finish. */
  private async respond(response: ModelResponse): Promise<Step> {
    this.messages.push({
      role: 'assistant',
      content: response.content,
      ...(response.toolCalls.length > 0 ? { toolCalls: response.toolCalls } : {}),
    });
    if (response.toolCalls.length === 0) return { kind: 'final_output', output: response.content ?? '' };

    const plan = planTurn(response.toolCalls);
    const results = new Map<string, string>(await this.runTools(plan.tools));
    for (const call of plan.ignoredHandoffs) results.set(call.id, ignoredHandoffResult(plan.handoff));
    const checked = plan.handoff ? this.evaluateHandoff(plan.handoff) : undefined;
    const policy = checked?.handoff && resolveApprovalPolicy(this.team, this.options.approvals, checked.handoff.from, checked.handoff.to);
    if (plan.handoff && checked?.handoff && policy) {
      const waiting = this.desk.open(checked.handoff, policy);
      this.openTurn = {
        calls: response.toolCalls,
        results: [...results],
        handoffCallId: plan.handoff.id,
        handoff: checked.handoff,
        handoffId: waiting.handoffId,
      };
      return this.finishTurn(this.openTurn);
    }
    if (plan.handoff && checked) results.set(plan.handoff.id, checked.result);
    return this.closeTurn(response.toolCalls, results, checked);
  }

  /** Wait for the approval a turn's handoff needs, then close the turn; `paused` to continue as new first. */
  private async finishTurn(open: OpenTurn): Promise<Step> {
    const approval = await this.desk.wait(open.handoffId, () => this.shouldContinueAsNew());
    if (!approval) return { kind: 'paused' };
    this.openTurn = undefined;
    const outcome = this.decided(open.handoff, approval);
    const results = new Map(open.results).set(open.handoffCallId, outcome.result);
    return this.closeTurn(open.calls, results, outcome);
  }

  /** Answer every tool call of the turn and say where the chain goes. */
  private closeTurn(calls: ToolCall[], results: Map<string, string>, outcome: HandoffOutcome | undefined): Step {
    // Every call gets its answer, in the order the model made them: OpenAI-compatible servers
    // reject a history with an unanswered tool call.
    const toolResults = calls.map((call) => ({ toolCallId: call.id, name: call.name, content: results.get(call.id) ?? '' }));
    for (const r of toolResults) this.messages.push({ role: 'tool', toolCallId: r.toolCallId, content: r.content });
    return outcome?.handoff
      ? { kind: 'handoff', handoff: outcome.handoff, toolResults, ...(outcome.approval ? { approval: outcome.approval } : {}) }
      : { kind: 'run_again' };
  }

  private async callModel(): Promise<ModelResponse> {
    const agent = this.agent;
    const callIndex = this.callCounts[agent.id] ?? 0;
    this.callCounts[agent.id] = callIndex + 1;
    const tools = agent.handoffTool ? [...agent.tools, agent.handoffTool] : agent.tools;
    const { callModel } = proxyActivities<BatonActivities>({ ...modelActivityOptions(this.options), summary: agent.id });
    try {
      const response = await callModel({ agentId: agent.id, model: agent.model, messages: this.messages, tools, callIndex });
      this.usage.modelCalls++;
      this.usage.inputTokens += response.usage.inputTokens;
      this.usage.outputTokens += response.usage.outputTokens;
      this.usage.totalTokens += response.usage.inputTokens + response.usage.outputTokens;
      return response;
    } catch (err) {
      throw activityError(err, (reason) => new ModelCallFailedError(agent.id, reason));
    }
  }

  /** Run the turn's regular tool calls in parallel; unknown tools are answered without an activity. */
  private async runTools(calls: ToolCall[]): Promise<[string, string][]> {
    const agent = this.agent;
    const { runTool } = proxyActivities<BatonActivities>({
      ...toolActivityOptions(this.options),
      summary: `${agent.id}: tool`,
    });
    return Promise.all(
      calls.map(async (call): Promise<[string, string]> => {
        if (!agent.tools.some((t) => t.name === call.name)) {
          const names = agent.tools.map((t) => t.name).join(', ') || '(none)';
          return [call.id, `Error: unknown tool "${call.name}". Available tools: ${names}`];
        }
        this.usage.toolCalls++;
        try {
          const idempotencyKey = `${workflowInfo().workflowId}:${agent.id}:${call.id}`;
          const result = await runTool({ agentId: agent.id, call, idempotencyKey });
          return [call.id, result.content];
        } catch (err) {
          throw activityError(err, (reason) => new ToolExecutionError(agent.id, call.name, reason));
        }
      }),
    );
  }

  /** Decide a handoff call: the tool result the model gets and, when it goes ahead, the handoff. */
  private evaluateHandoff(call: ToolCall): HandoffOutcome {
    const from = this.agent;
    const parsed = extractHandoff(call, from.id);
    if (typeof parsed === 'string' || parsed === null) return { result: `Error: ${parsed ?? 'not a handoff call'}` };
    if (!from.handoffs.includes(parsed.to) || !this.team.agents[parsed.to]) {
      const error = new HandoffTargetNotFoundError(from.id, parsed.to, from.handoffs);
      if (this.options.onInvalidHandoff !== 'retry' || this.invalidHandoffs >= this.options.maxInvalidHandoffRetries) {
        throw error;
      }
      this.invalidHandoffs++;
      return { result: `Error: ${error.message}. Call ${call.name} again with one of: ${from.handoffs.join(', ')}` };
    }
    if (this.chain.length >= this.options.maxHandoffs) {
      throw new MaxHandoffsExceededError(this.options.maxHandoffs, this.chain, { from: from.id, to: parsed.to });
    }
    return { result: `Handed off to ${parsed.to}.`, handoff: parsed };
  }

  /** What a person's decision (or its absence) means for the handoff. */
  private decided(h: HandoffResult, approval: ApprovalRecord): HandoffOutcome {
    if (approval.outcome === 'approved') {
      return { result: `Handed off to ${h.to} (approved by ${approval.approver}).`, handoff: h, approval };
    }
    if (approval.outcome === 'rejected') {
      const why = approval.reason ? `: ${approval.reason}` : '';
      return { result: `The handoff to ${h.to} was rejected by ${approval.approver}${why}. Continue without it: answer yourself or hand off elsewhere.`, approval };
    }
    const onTimeout = approval.onTimeout ?? 'reject';
    if (onTimeout === 'approve') return { result: `Handed off to ${h.to} (approved when nobody decided in time).`, handoff: h, approval };
    if (onTimeout === 'fail') throw new ApprovalTimeoutError(approval.handoffId, h.from, h.to, String(approval.timeout));
    return { result: `The handoff to ${h.to} was not approved in time. Continue without it: answer yourself or hand off elsewhere.`, approval };
  }

  /** Record the handoff (state, search attributes, an explicit activity in history) and move on. */
  private async handoff(h: HandoffResult, toolResults: ToolResultRecord[], approval?: ApprovalRecord): Promise<void> {
    const record: HandoffRecord = {
      from: h.from,
      to: h.to,
      message: h.message,
      timestamp: new Date().toISOString(),
      turn: this.turns,
      ...(approval ? { approval } : {}),
    };
    this.chain.push(record);
    upsertSearchAttributes([
      { key: BatonAgent, value: h.to },
      { key: BatonHandoffs, value: this.chain.length },
    ]);
    this.activate(this.lookup(h.to), h.message);
    const entry = { handoff: record, index: this.chain.length, toolResults };
    const activities = proxyActivities<BatonActivities>({
      startToCloseTimeout: '1 minute',
      retry: { maximumAttempts: 3 },
      summary: `${h.from} → ${h.to}`,
    });
    let hooks: ((input: typeof entry) => Promise<void>) | undefined = activities.recordHandoff;
    if (patched(Patches.HANDOFF_RECORD_IN_MEMO)) {
      // The memo upsert is the history record; an activity only when there are hooks to run.
      upsertMemo({ [HANDOFF_MEMO]: entry });
      hooks = this.team.hasHandoffListeners ? activities.runHandoffHooks : undefined;
    }
    try {
      await hooks?.(entry);
    } catch (err) {
      // Hooks observe the chain; a hook that keeps failing must not stop it.
      log.warn('agent_handoff hook failed', { error: String(err), handoff: record });
    }
  }

  private checkScriptsConsumed(): void {
    const unconsumed: Record<string, number> = {};
    for (const [id, calls] of Object.entries(this.callCounts)) {
      const model = this.team.agents[id]?.model;
      if (model?.provider === 'scripted' && model.requireAllSteps && model.steps.length > calls) {
        unconsumed[id] = model.steps.length - calls;
      }
    }
    if (Object.keys(unconsumed).length > 0) throw new UnconsumedScriptStepsError(unconsumed);
  }
}

function conversationFor(agent: AgentSpec, input: string): ChatMessage[] {
  return [
    { role: 'system', content: agent.instructions },
    { role: 'user', content: input },
  ];
}

/** Keep baton's own typed failures; wrap anything else that outlived its retries. */
function activityError(err: unknown, wrap: (reason: string) => Error): unknown {
  if (!(err instanceof ActivityFailure)) return err;
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && cause.type && BATON_ERROR_TYPES.includes(cause.type)) return cause;
  if (cause instanceof TimeoutFailure) return wrap(`timed out (${cause.timeoutType})`);
  return wrap(cause?.message ?? err.message);
}
