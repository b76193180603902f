/**
 * What a migration onto the current team (`baton replay <id> --on-current-team`) carries besides
 * the state rebuilt at the chain's last good step: the team it ran on, and, when the chain stands
 * at an agent it was handed to, the turn that handed it there, so the run can go back to that turn
 * if the current team no longer has the agent.
 */
import { isHandoffCall } from '../common/handoff';
import { ActivityType } from '../common/messages';
import type { CallModelInput, ChatMessage, ModelResponse } from '../common/model';
import type { ChainState, MigrationFallback, MigrationRequest } from '../common/state';
import { versionIdOf } from '../common/version';
import { activityName, recordedHandoff, withLocalActivities } from '../audit/history';
import { fromPayloads, type HistoryEvent } from '../payloads/read';

/** The migration request for `state`, rebuilt from the run whose history is `events`. */
export function migrationRequest(state: ChainState, recordedEvents: HistoryEvent[]): MigrationRequest {
  const fallback = fallbackTurn(state, withLocalActivities(recordedEvents));
  return { from: versionIdOf(state.team), ...(fallback ? { fallback } : {}) };
}

/** The turn of the agent that handed the chain to where it stands, as this run recorded it. */
function fallbackTurn(state: ChainState, events: HistoryEvent[]): MigrationFallback | undefined {
  const last = state.chain.at(-1);
  if (!last || last.to !== state.agentId) return undefined;
  const record = events
    .map((e) => ({ e, r: recordedHandoff(e) }))
    .filter((x) => x.r?.handoff.to === last.to && x.r.handoff.from === last.from)
    .at(-1);
  if (!record) return undefined;
  const call = lastModelCall(events, last.from, Number(record.e.eventId));
  const source = state.team.agents[last.from];
  if (!call || !source) return undefined;
  const handoffCall = call.response.toolCalls.find((c) => isHandoffCall(c, source));
  if (!handoffCall) return undefined;
  const assistant: ChatMessage = {
    role: 'assistant',
    content: call.response.content,
    ...(call.response.toolCalls.length > 0 ? { toolCalls: call.response.toolCalls } : {}),
  };
  const answers = (record.r!.toolResults ?? [])
    .filter((r) => r.toolCallId !== handoffCall.id)
    .map((r) => ({ toolCallId: r.toolCallId, content: r.content }));
  return {
    agentId: last.from,
    messages: [...call.input.messages, assistant],
    answers,
    handoffCallId: handoffCall.id,
    to: last.to,
  };
}

/** The last answered model call of `agent` before event `before`. */
function lastModelCall(
  events: HistoryEvent[],
  agent: string,
  before: number,
): { input: CallModelInput; response: ModelResponse } | undefined {
  const inputs = new Map<string, CallModelInput>();
  let found: { input: CallModelInput; response: ModelResponse } | undefined;
  for (const e of events) {
    if (Number(e.eventId) >= before) break;
    if (activityName(e) === ActivityType.CALL_MODEL) {
      const input = fromPayloads<CallModelInput>(e.activityTaskScheduledEventAttributes?.input);
      if (input) inputs.set(String(e.eventId), input);
    }
    const done = e.activityTaskCompletedEventAttributes;
    const input = done ? inputs.get(String(done.scheduledEventId)) : undefined;
    if (done && input?.agentId === agent) found = { input, response: fromPayloads<ModelResponse>(done.result)! };
  }
  return found;
}
