import { allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import type { BatonActivities } from '../activities';
import { resolveRunOptions, runOptionProblems, validateRunInput } from '../src/common/defaults';
import { BatonError, toApplicationFailure } from '../src/common/errors';
import {
  APPROVAL_EVENT_MEMO,
  BatonAgent,
  BatonHandoffs,
  BatonStatusAttribute,
  chainQuery,
  overrideRunSignal,
  statusQuery,
} from '../src/common/messages';
import { BatonStatus, type HandoffRunInput, type HandoffRunResult, type RunOverrides } from '../src/common/types';
import { ApprovalDesk } from './approvals';
import { HandoffLoop } from './loop';

const { loadTeam } = proxyActivities<BatonActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
  summary: 'team snapshot',
});

/**
 * One chain of handoffs: from `input.agent` with `input.input` until an agent answers.
 * Input and result are plain JSON, so any Temporal client can start it. Long chains continue as
 * new, carrying their state in `input.resume`.
 */
export async function handoffRun(rawInput: HandoffRunInput): Promise<HandoffRunResult> {
  let status: BatonStatus = BatonStatus.RUNNING;
  let loop: HandoffLoop | undefined;
  const overrides: RunOverrides[] = [];
  const setStatus = (next: BatonStatus) => {
    status = next;
    upsertSearchAttributes([{ key: BatonStatusAttribute, value: next }]);
  };
  const desk = new ApprovalDesk((waiting) => setStatus(waiting ? BatonStatus.AWAITING_APPROVAL : BatonStatus.RUNNING));
  desk.install();
  setHandler(chainQuery, () => loop?.chain ?? []);
  setHandler(statusQuery, () => ({
    status,
    currentAgent: loop?.agent.id ?? (rawInput as Partial<HandoffRunInput>)?.agent ?? '',
    handoffs: loop?.chain.length ?? 0,
    turns: loop?.turns ?? 0,
    pendingApprovals: [...desk.pending.values()],
  }));
  setHandler(overrideRunSignal, (o) => {
    const problems = overrideProblems(o);
    upsertMemo({ [APPROVAL_EVENT_MEMO]: problems.length > 0 ? { type: 'overrides_refused', problems } : { type: 'overrides_applied', ...o } });
    if (problems.length > 0) return;
    if (loop) loop.override(o);
    else overrides.push(o);
  });

  let input: HandoffRunInput;
  let outcome: Awaited<ReturnType<HandoffLoop['run']>>;
  try {
    input = validateRunInput(rawInput);
    if (!input.resume) {
      upsertSearchAttributes([
        { key: BatonAgent, value: input.agent },
        { key: BatonStatusAttribute, value: BatonStatus.RUNNING },
        { key: BatonHandoffs, value: 0 },
      ]);
    }
    loop = input.resume
      ? HandoffLoop.resume(input.resume, desk)
      : HandoffLoop.start(await loadTeam(), input.agent, input.input, resolveRunOptions(input.options), desk);
    for (const o of overrides.splice(0)) loop.override(o);
    outcome = await loop.run();
  } catch (err) {
    setStatus(BatonStatus.FAILED);
    throw err instanceof BatonError ? toApplicationFailure(err) : err;
  }
  if (outcome !== 'continue_as_new') {
    setStatus(BatonStatus.COMPLETED);
    return outcome;
  }
  // Handlers answer at once, but let any that is running finish before handing over.
  await condition(allHandlersFinished);
  return continueAsNew<typeof handoffRun>({
    agent: input.agent,
    input: input.input,
    ...(input.options ? { options: input.options } : {}),
    resume: loop.snapshot(),
  });
}

function overrideProblems(o: RunOverrides): string[] {
  if (typeof o !== 'object' || o === null) return ['overrides must be an object {options?, models?}'];
  const problems = o.options !== undefined ? runOptionProblems(o.options) : [];
  if (o.models !== undefined && (typeof o.models !== 'object' || o.models === null)) problems.push('"models" must map agent ids to model specs');
  return problems;
}
