/**
 * A case scored: the candidate chain beside its record — routes, outcomes, what was reused and
 * what was spent, the first model call whose input the record did not have and why, and the
 * expectations of both.
 */
import { clipText } from '../common/limits';
import { ActivityType } from '../common/messages';
import type { CallModelInput, ModelResponse } from '../common/model';
import type { RunToolInput } from '../common/team';
import { type ChainRecord, modelCalls, summarize } from './chainRecord';
import { partsThatDiffer, requestParts } from './digest';
import { weighExpectations } from './expect';
import type { Recording } from './recording';
import { toolMode } from './replay';
import type { CaseContext } from './store';
import type { ApprovalsDecided, ScoredCase } from '../common/eval/activities';
import type { FirstDifference } from '../common/eval/types';

const MODEL_ACTIVITIES: readonly string[] = [
  ActivityType.CALL_MODEL,
  ActivityType.SUMMARIZE_HANDOFF,
  ActivityType.ROUTE_SPECIALIST,
];

/** Score the candidate chain `candidate` of a case against the case's record. */
export function scoreCase(found: CaseContext, candidate: ChainRecord, approvals: ApprovalsDecided): ScoredCase {
  const { input, recording } = found;
  const reusedCall = (a: { type: string; input: unknown }) => recording?.has(a.type, a.input) ?? false;
  const summary = summarize(candidate, (a) => !reusedCall(a));
  const tools = { recorded: 0, live: 0, notRun: 0 };
  for (const a of candidate.activities) {
    if (a.type !== ActivityType.RUN_TOOL) continue;
    const mode = toolMode(found, a.input as RunToolInput);
    tools[mode === 'not_run' ? 'notRun' : mode] += 1;
  }
  const recorded = recording ? summarize(recording.chain) : undefined;
  const expectations = weighExpectations(input.case.expect, { summary, output: candidate.audit.result?.output });
  const recordedResults =
    recording && recorded
      ? weighExpectations(input.case.expect, { summary: recorded, output: recording.chain.audit.result?.output })
      : undefined;
  const first = firstDifference(candidate, recording);
  const expectedRoute = input.case.expect?.route;
  const start = candidate.input ?? recording?.chain.input;
  return {
    index: input.index,
    id: input.case.id,
    source: input.case.source,
    request: {
      agent: start?.agent ?? input.case.start?.agent ?? '',
      input: clipText(start?.input ?? input.case.start?.input ?? '', 200),
    },
    ...(recorded ? { recorded } : {}),
    candidate: {
      ...summary,
      reused: candidate.activities.filter((a) => MODEL_ACTIVITIES.includes(a.type) && reusedCall(a)).length,
      tools,
      approvals,
    },
    ...(first ? { firstDifference: first } : {}),
    routeAgrees: recorded
      ? same(recorded.route, summary.route)
      : expectedRoute
        ? same(expectedRoute, summary.route)
        : true,
    outcomeAgrees: recorded
      ? recorded.outcome.status === summary.outcome.status && recorded.outcome.error === summary.outcome.error
      : summary.outcome.status === (input.case.expect?.outcome ?? 'completed'),
    expectations,
    ...(recordedResults ? { recordedPassed: recordedResults.every((r) => r.ok) } : {}),
  };
}

/**
 * The candidate's first model call the record has no answer for, and what of its input differs
 * from the recorded call of the same agent at the same point (its n-th call, in the same chain).
 */
export function firstDifference(candidate: ChainRecord, recording: Recording | undefined): FirstDifference | undefined {
  const calls = modelCalls(candidate);
  const index = calls.findIndex((c) => !recording?.has(ActivityType.CALL_MODEL, c.input));
  if (index < 0) return undefined;
  const call = calls[index]!;
  const where = relativeChain(candidate.workflowId, call.chain);
  const base = { step: index + 1, agent: call.input.agentId, chain: call.chain };
  if (!recording) return { ...base, why: ['no recorded chain to reuse answers from'] };
  const recorded = modelCalls(recording.chain);
  const counterpart = recorded.find(
    (r) =>
      relativeChain(recording.chain.workflowId, r.chain) === where &&
      r.input.agentId === call.input.agentId &&
      r.input.callIndex === call.input.callIndex,
  );
  if (counterpart) {
    const why = partsThatDiffer(requestParts(call.input), requestParts(counterpart.input));
    return {
      ...base,
      why: why.length > 0 ? why : ['the call was made after a different answer (an earlier step differs)'],
    };
  }
  return { ...base, why: [missingWords(call, recorded, where)] };
}

function missingWords(
  call: { input: CallModelInput },
  recorded: { chain: string; input: CallModelInput; response: ModelResponse }[],
  where: string,
): string {
  const agent = call.input.agentId;
  const n = recorded.filter((r) => r.input.agentId === agent).length;
  if (n === 0)
    return `${agent} did not work in the recorded chain${where ? ` (specialist ${where})` : ''}: the route changed before this step`;
  return `the recorded chain made ${n} call${n === 1 ? '' : 's'} of ${agent}; this is its call ${call.input.callIndex + 1}`;
}

/** A chain's id relative to its top chain: '' for the top chain, `physics-2.1` for a specialist. */
function relativeChain(top: string, chain: string): string {
  return chain === top ? '' : chain.startsWith(`${top}/`) ? chain.slice(top.length + 1) : chain;
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
