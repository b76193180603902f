/**
 * The handoff loop: deterministic state and transitions of one chain. No I/O here; every side
 * effect is an activity, time is workflow time.
 */
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { log, proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { BatonActivities } from '../activities';
import {
  modelActivityOptions,
  toolActivityOptions,
  type ResolvedRunOptions,
} from '../src/common/defaults';
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
import { BatonAgent, BatonHandoffs } from '../src/common/messages';
import type {
  AgentSpec,
  ApprovalRecord,
  ChatMessage,
  HandoffRecord,
  HandoffRunResult,
  ModelResponse,
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
  | { kind: 'run_again' };

/** What a handoff call leads to: the tool result the model gets and, when it goes ahead, the handoff. */
interface HandoffOutcome {
  result: string;
  handoff?: HandoffResult;
  approval?: ApprovalRecord;
}

export class HandoffLoop {
  agent: AgentSpec;
  readonly chain: HandoffRecord[] = [];
  readonly usage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, toolCalls: 0 };
  /** Model turns in the whole run. */
  turns = 0;
  private messages: ChatMessage[] = [];
  private activationTurns = 0;
  private invalidHandoffs = 0;
  private readonly callCounts: Record<string, number> = {};

  constructor(
    private readonly team: TeamSpec,
    startAgent: string,
    input: string,
    private readonly options: ResolvedRunOptions,
    private readonly desk: ApprovalDesk,
  ) {
    this.agent = this.lookup(startAgent);
    this.activate(this.agent, input);
  }

  /** Run turns until an agent answers. */
  async run(): Promise<HandoffRunResult> {
    for (;;) {
      const step = await this.turn();
      if (step.kind === 'final_output') {
        this.checkScriptsConsumed();
        return { output: step.output, finalAgent: this.agent.id, handoffChain: this.chain, usage: this.usage };
      }
      if (step.kind === 'handoff') await this.handoff(step.handoff, step.toolResults, step.approval);
    }
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
    this.messages = [
      { role: 'system', content: agent.instructions },
      { role: 'user', content: input },
    ];
  }

  private async turn(): Promise<Step> {
    if (this.activationTurns >= this.options.maxTurns) throw new MaxTurnsExceededError(this.agent.id, this.options.maxTurns);
    this.activationTurns++;
    this.turns++;
    const response = await this.callModel();
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
    const outcome: HandoffOutcome | undefined = checked?.handoff ? await this.approve(checked.handoff) : checked;
    if (plan.handoff && outcome) results.set(plan.handoff.id, outcome.result);
    // Every call gets its answer, in the order the model made them: OpenAI-compatible servers
    // reject a history with an unanswered tool call.
    const toolResults = response.toolCalls.map((call) => ({ toolCallId: call.id, name: call.name, content: results.get(call.id) ?? '' }));
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

  /** Hold a valid handoff for a person's decision when its policy asks for one. */
  private async approve(h: HandoffResult): Promise<HandoffOutcome> {
    const policy = resolveApprovalPolicy(this.team, this.options.approvals, h.from, h.to);
    if (!policy) return { result: `Handed off to ${h.to}.`, handoff: h };
    const approval = await this.desk.request(h, policy);
    if (approval.outcome === 'approved') {
      return { result: `Handed off to ${h.to} (approved by ${approval.approver}).`, handoff: h, approval };
    }
    if (approval.outcome === 'rejected') {
      const why = approval.reason ? `: ${approval.reason}` : '';
      return { result: `The handoff to ${h.to} was rejected by ${approval.approver}${why}. Continue without it: answer yourself or hand off elsewhere.`, approval };
    }
    const onTimeout = policy.onTimeout ?? 'reject';
    if (onTimeout === 'approve') return { result: `Handed off to ${h.to} (approved when nobody decided in time).`, handoff: h, approval };
    if (onTimeout === 'fail') throw new ApprovalTimeoutError(approval.handoffId, h.from, h.to, String(policy.timeout));
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
    const { recordHandoff } = proxyActivities<BatonActivities>({
      startToCloseTimeout: '1 minute',
      retry: { maximumAttempts: 3 },
      summary: `${h.from} → ${h.to}`,
    });
    try {
      await recordHandoff({ handoff: record, index: this.chain.length, toolResults });
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

/** Keep baton's own typed failures; wrap anything else that outlived its retries. */
function activityError(err: unknown, wrap: (reason: string) => Error): unknown {
  if (!(err instanceof ActivityFailure)) return err;
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && cause.type && BATON_ERROR_TYPES.includes(cause.type)) return cause;
  if (cause instanceof TimeoutFailure) return wrap(`timed out (${cause.timeoutType})`);
  return wrap(cause?.message ?? err.message);
}
