import { proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { BatonActivities } from '../activities';
import { resolveRunOptions, validateRunInput } from '../src/common/defaults';
import { BatonError, toApplicationFailure } from '../src/common/errors';
import {
  BatonAgent,
  BatonHandoffs,
  BatonStatusAttribute,
  chainQuery,
  statusQuery,
} from '../src/common/messages';
import { BatonStatus, type HandoffRunInput, type HandoffRunResult } from '../src/common/types';
import { ApprovalDesk } from './approvals';
import { HandoffLoop } from './loop';

const { loadTeam } = proxyActivities<BatonActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
  summary: 'team snapshot',
});

/**
 * One chain of handoffs: from `input.agent` with `input.input` until an agent answers.
 * Input and result are plain JSON, so any Temporal client can start it.
 */
export async function handoffRun(rawInput: HandoffRunInput): Promise<HandoffRunResult> {
  let status: BatonStatus = BatonStatus.RUNNING;
  let loop: HandoffLoop | undefined;
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
  try {
    const input = validateRunInput(rawInput);
    upsertSearchAttributes([
      { key: BatonAgent, value: input.agent },
      { key: BatonStatusAttribute, value: BatonStatus.RUNNING },
      { key: BatonHandoffs, value: 0 },
    ]);
    const team = await loadTeam();
    loop = new HandoffLoop(team, input.agent, input.input, resolveRunOptions(input.options), desk);
    const result = await loop.run();
    setStatus(BatonStatus.COMPLETED);
    return result;
  } catch (err) {
    setStatus(BatonStatus.FAILED);
    throw err instanceof BatonError ? toApplicationFailure(err) : err;
  }
}
