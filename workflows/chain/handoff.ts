/**
 * What a handoff call means: reading it, weighing it (typed input, guards, the worker's veto,
 * approval), what a decision on it leads to, and recording it with what its target receives.
 */
import {
  expiredHandoffAnswer,
  handedOffAnswer,
  rejectedHandoffAnswer,
  vetoedHandoffAnswer,
} from '../../src/common/answers';
import { rejectionJson } from '../../src/common/approvalReasons';
import type { ApprovalPolicy, ApprovalRecord } from '../../src/common/approvals';
import { ApprovalTimeoutError } from '../../src/common/errors';
import { LIMITS } from '../../src/common/limits';
import { extractHandoff, type HandoffResult } from '../../src/common/handoff';
import type { ModelResponse, ToolCall } from '../../src/common/model';
import type { HandoffRecord } from '../../src/common/run';
import type { AgentSpec } from '../../src/common/team';
import { SPECIALIST_HANDOFF_TOOL_NAME } from '../../src/common/delegation';
import { admitTarget, noteSuccess, retried } from './controls';
import { checkGuardrails } from './guardrails';
import { routeToSpecialist } from './routing';
import { agentOf, currentAgent } from './state';
import type { ChainRun, Step } from './step';
import { planTransfer, transcript, type TransferPlan, transferTo } from './transfer';

/** A handoff call read: the handoff it asks for, or what is wrong with its arguments. */
export type HandoffRequest = { kind: 'handoff'; handoff: HandoffResult } | { kind: 'invalid'; answer: string };

export function readHandoff(call: ToolCall, from: AgentSpec | string, maxDepth?: number): HandoffRequest {
  const agent = typeof from === 'string' ? undefined : from;
  const parsed = extractHandoff(call, typeof from === 'string' ? from : from.id, agent, maxDepth);
  if (typeof parsed === 'string' || parsed === null)
    return { kind: 'invalid', answer: `Error: ${parsed ?? 'not a handoff call'}` };
  return { kind: 'handoff', handoff: parsed };
}

/** Where a weighed handoff call goes: answered without a handoff, ahead, or to a person first. */
export type Weighed =
  | { kind: 'answer'; answer: string }
  | { kind: 'go'; handoff: HandoffResult }
  | { kind: 'wait'; handoff: HandoffResult; policy: ApprovalPolicy };

/**
 * Weigh the turn's handoff call: its arguments, the guards, its typed input (checked by the model
 * activity) and the worker's `onHandoff` veto.
 */
export async function weighHandoff(
  run: ChainRun,
  call: ToolCall,
  checkedInput: NonNullable<ModelResponse['handoffInputs']>[number] | undefined,
): Promise<Weighed> {
  const { chain, effects, guards } = run;
  const source = currentAgent(chain.state);
  let h: HandoffResult;
  if (call.name === SPECIALIST_HANDOFF_TOOL_NAME) {
    const routed = await routeToSpecialist(run, source, call);
    if (routed.kind === 'answer') return routed;
    const { task, reason, context } = routed.request;
    h = {
      kind: 'handoff',
      from: source.id,
      to: routed.to,
      message: [task, reason && `Why: ${reason}`, context && `Context: ${context}`].filter(Boolean).join('\n'),
      via: 'specialist',
    };
  } else {
    // What the model sends is held to the depth of anything that arrives (runs with the baton-inbox-bounds patch).
    const request = readHandoff(call, source, run.desk.inboxBounds ? LIMITS.jsonDepth : undefined);
    if (request.kind === 'invalid') return { kind: 'answer', answer: request.answer };
    h = request.handoff;
  }
  // A team that shares no state takes no updates, whatever the model sends.
  if (h.update && !chain.state.team.sharedState) h = withoutUpdate(h);
  const verdict = guards.beforeHandoff(chain.state, h);
  if (retried(run, verdict)) return { kind: 'answer', answer: verdict.message };
  const shared = run.economy ? await run.economy.beforeTarget(run, h.from, h.to, 'handed off') : undefined;
  if (shared && retried(run, shared)) return { kind: 'answer', answer: shared.message };
  const options = source.handoffOptions?.[h.to];
  if (options?.inputSchema && checkedInput) {
    if ('error' in checkedInput)
      return {
        kind: 'answer',
        answer: `Error: invalid input for the handoff to ${h.to}: ${checkedInput.error}. Call ${call.name} again with "input" matching its schema.`,
      };
    h = { ...h, input: checkedInput.value };
  }
  const target = chain.state.team.agents[h.to];
  if (target?.guardrails?.input) {
    const text = h.input !== undefined ? `${h.message}\n${JSON.stringify(h.input)}` : h.message;
    const tripped = await checkGuardrails(
      run,
      target,
      'input',
      text,
      (reason, g) =>
        `Not handed off: ${h.to} does not accept this handoff: its guardrail "${g.name}" tripped: ${reason}. Change what you send, or answer yourself.`,
    );
    if (retried(run, tripped)) return { kind: 'answer', answer: tripped.message };
  }
  if (options?.onHandoff) {
    const { veto } = await effects.checkHandoff(
      { from: h.from, to: h.to, message: h.message, ...(h.input !== undefined ? { input: h.input } : {}) },
      chain.state.options,
    );
    if (veto !== undefined) return { kind: 'answer', answer: vetoedHandoffAnswer(h.to, veto) };
  }
  return verdict.kind === 'wait' ? { kind: 'wait', handoff: h, policy: verdict.policy } : { kind: 'go', handoff: h };
}

function withoutUpdate(h: HandoffResult): HandoffResult {
  const { update: _dropped, ...rest } = h;
  return rest;
}

/** Where a handoff stands once decided: the answer its call gets and, when it goes ahead, the handoff. */
export interface HandoffOutcome {
  answer: string;
  handoff?: HandoffResult;
  approval?: ApprovalRecord;
}

/** What a person's decision, or its absence, means for the handoff. */
export function decidedOutcome(h: HandoffResult, approval: ApprovalRecord): HandoffOutcome {
  if (approval.outcome === 'approved')
    return { answer: handedOffAnswer(h.to, { approver: approval.approver }), handoff: h, approval };
  if (approval.outcome === 'rejected')
    return {
      answer: rejectedHandoffAnswer(h.to, approval.approver, approval.reason, rejectionJson(approval)),
      approval,
    };
  const onTimeout = approval.onTimeout ?? 'reject';
  if (onTimeout === 'approve') return { answer: handedOffAnswer(h.to, { onTimeout: true }), handoff: h, approval };
  if (onTimeout === 'fail') throw new ApprovalTimeoutError(approval.handoffId, h.from, h.to, String(approval.timeout));
  return { answer: expiredHandoffAnswer(h.to), approval };
}

/**
 * Record the handoff and move on: the target's start (the carried conversation, summarized when
 * declared, and its input), the state, the search attributes, the memo record and the hooks. A
 * promise only while a summary or hooks are under way.
 */
export function handOff(run: ChainRun, step: Extract<Step, { kind: 'handoff' }>): Promise<void> | void {
  const { chain, effects } = run;
  const source = currentAgent(chain.state);
  const plan = planTransfer(chain.state, source, step.handoff);
  if (!plan.summarize) return moveOn(run, step, source, plan);
  return effects
    .summarize(
      { agentId: source.id, model: source.model, transcript: transcript(plan.carried), ...plan.summarize },
      chain.state.options,
    )
    .then((summarized) => {
      chain.apply({ type: 'model_used', usage: summarized.usage });
      run.economy?.charge(chain.state, effects, summarized.usage);
      return moveOn(run, step, source, plan, summarized.summary);
    });
}

/** The handoff on the record and the target started, once any summary of the carried conversation is in. */
function moveOn(
  run: ChainRun,
  step: Extract<Step, { kind: 'handoff' }>,
  source: AgentSpec,
  plan: TransferPlan,
  summary?: string,
): Promise<void> | void {
  const { chain, effects } = run;
  const h = step.handoff;
  const transfer = transferTo(chain.state, source, agentOf(chain.state.team, h.to), h, plan, summary);
  noteSuccess(run, source.id);
  admitTarget(run, h.to);
  const record: HandoffRecord = {
    from: h.from,
    to: h.to,
    message: h.message,
    timestamp: new Date(effects.now()).toISOString(),
    turn: chain.state.turns,
    ...(step.approval ? { approval: step.approval } : {}),
    ...(h.input !== undefined ? { input: h.input } : {}),
    ...(h.update ? { update: h.update } : {}),
  };
  chain.apply({ type: 'handed_off', record, messages: transfer.messages });
  const index = chain.state.chain.length;
  effects.setAgent(h.to, index);
  const how = step.approval
    ? ` (${step.approval.outcome === 'approved' ? `approved by ${step.approval.approver}` : 'approved when nobody decided in time'})`
    : '';
  return effects.recordHandoff(
    {
      summary: `#${index} ${h.from} → ${h.to}${how}`,
      handoff: record,
      index,
      toolResults: step.toolResults,
      // Declared handoffs say what their target received; a plain one gives it only the message.
      ...(source.handoffOptions?.[h.to] ? { transfer } : {}),
    },
    chain.state.team,
  );
}
