/**
 * The loop state of a chain at a chosen step, rebuilt from its run's history: what a replay with
 * overrides starts the new run from. Every model answer and tool result before that step comes
 * from history; nothing is called again.
 */
import type { temporal } from '@temporalio/proto';
import { activityName, brokenStep, recordedHandoff } from '../audit/history';
import { fromPayload, fromPayloads } from '../audit/payloads';
import { resolveRunOptions } from '../common/defaults';
import { UserError } from '../common/errors';
import { ActivityType, APPROVAL_EVENT_MEMO } from '../common/messages';
import type {
  ApprovalRecord,
  CallModelInput,
  HandoffRecord,
  HandoffRunInput,
  LoopState,
  ModelResponse,
  RecordHandoffInput,
  TeamSpec,
} from '../common/types';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

interface Call<I, R> {
  eventId: number;
  name?: string;
  input: I;
  result?: R;
}

const decode = (p: temporal.api.common.v1.IPayloads | null | undefined): unknown => fromPayloads(p);

/** Where the rebuilt state resumes, and the state. */
export interface ResumePoint {
  from: string;
  state: LoopState;
  input: HandoffRunInput;
}

/**
 * Rebuild the state just before the step to run again: the model turn that asked for handoff
 * `fromHandoff`; else a model call that failed; else right after the last model answer (a tool that
 * failed, a limit hit, a termination), so that answer is acted on again without asking the model.
 */
export function rebuildState(events: HistoryEvent[], fromHandoff?: number): ResumePoint {
  const input = decode(events[0]?.workflowExecutionStartedEventAttributes?.input) as HandoffRunInput | undefined;
  if (!input) throw new UserError('the run has no input to rebuild from');
  const base = input.resume;
  let team = base?.team;
  const models: Call<CallModelInput, ModelResponse>[] = [];
  const records: Call<RecordHandoffInput, unknown>[] = [];
  const decisions: { eventId: number; record: ApprovalRecord }[] = [];
  const byId = new Map<string, Call<unknown, unknown>>();
  for (const e of events) {
    const id = Number(e.eventId);
    const s = e.activityTaskScheduledEventAttributes;
    if (s) {
      const call: Call<unknown, unknown> = { eventId: id, name: activityName(e), input: decode(s.input) };
      byId.set(String(id), call);
      if (call.name === ActivityType.CALL_MODEL) models.push(call as Call<CallModelInput, ModelResponse>);
    }
    const done = e.activityTaskCompletedEventAttributes;
    if (done) {
      const call = byId.get(String(done.scheduledEventId));
      if (call) call.result = decode(done.result) ?? null;
      if (call?.name === ActivityType.LOAD_TEAM) team = call.result as TeamSpec;
    }
    const handoff = recordedHandoff(e);
    if (handoff) records.push({ eventId: id, input: handoff });
    const memo = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[APPROVAL_EVENT_MEMO];
    const event = memo ? fromPayload<{ type: string } & ApprovalRecord>(memo) : undefined;
    if (event?.type === 'approval_decided') {
      const { type: _type, ...record } = event;
      decisions.push({ eventId: id, record });
    }
  }
  if (!team) throw new UserError('the run never recorded its team snapshot; start it again instead');

  let target: Call<CallModelInput, ModelResponse> | undefined;
  let after = false;
  let from: string;
  if (fromHandoff !== undefined) {
    const offset = base?.chain.length ?? 0;
    const record = records.find((r) => r.input.index === fromHandoff);
    if (!record) throw new UserError(`fromHandoff must be ${offset + 1} to ${offset + records.length} for this run, got ${fromHandoff}`);
    target = models.filter((m) => m.eventId < record.eventId).at(-1);
    from = `handoff ${fromHandoff}`;
  } else {
    const broken = brokenStep(events);
    const failedModel = broken && activityName(broken) === ActivityType.CALL_MODEL ? models.find((m) => m.eventId === Number(broken.eventId)) : undefined;
    target = failedModel ?? models.filter((m) => m.result !== undefined).at(-1);
    after = !failedModel;
    from = broken ? `failed ${activityName(broken)}` : 'last step';
  }
  if (!target) throw new UserError('the run has no model turn to continue from');

  const cut = target.eventId;
  const prior = models.filter((m) => m.eventId < cut);
  const counted = after ? [...prior, target] : prior;
  const chain: HandoffRecord[] = [...(base?.chain ?? []), ...records.filter((r) => r.eventId < cut).map((r) => r.input.handoff)];
  const lastHandoff = records.filter((r) => r.eventId < cut).at(-1)?.eventId;
  const activation = counted.filter((m) => m.eventId > (lastHandoff ?? 0));
  const callCounts = { ...(base?.callCounts ?? {}) };
  for (const m of counted) callCounts[m.input.agentId] = (callCounts[m.input.agentId] ?? 0) + 1;
  const usage = { ...(base?.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, toolCalls: 0 }) };
  for (const m of counted) {
    if (!m.result) continue;
    usage.modelCalls++;
    usage.inputTokens += m.result.usage.inputTokens;
    usage.outputTokens += m.result.usage.outputTokens;
    usage.totalTokens += m.result.usage.inputTokens + m.result.usage.outputTokens;
  }
  usage.toolCalls += [...byId.values()].filter((t) => t.name === ActivityType.RUN_TOOL && t.eventId < cut && t.result !== undefined).length;

  const state: LoopState = {
    team,
    options: base?.options ?? resolveRunOptions(input.options),
    agentId: target.input.agentId,
    messages: target.input.messages,
    chain,
    usage,
    turns: (base?.turns ?? 0) + counted.length,
    activationTurns: (lastHandoff === undefined ? (base?.activationTurns ?? 0) : 0) + activation.length,
    invalidHandoffs: base?.invalidHandoffs ?? 0,
    callCounts,
    ...(after && target.result ? { pendingResponse: target.result } : {}),
    approvals: {
      pending: [],
      decided: [...(base?.approvals.decided ?? []), ...decisions.filter((d) => d.eventId < cut).map((d) => d.record)],
    },
    continuedRuns: 0,
  };
  return { from, state, input };
}
