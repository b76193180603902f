/**
 * The engine's floor: minimal workflows on the same server, for ratios against baton.
 * Deterministic workflow code only.
 */
import {
  condition,
  defineSignal,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { BatonAgent, BatonHandoffs, BatonStatusAttribute, HANDOFF_MEMO } from '../../src/common/messages';
import type * as activities from './activities';

const { noop } = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });
const local = proxyLocalActivities<typeof activities>({ startToCloseTimeout: '1 minute' });

/**
 * `steps` sequential no-op activities: what a chain's activities cost with no logic around them.
 * With `writes`, each step after the first two also makes the writes a baton handoff makes (its
 * search attributes and a memo record), to tell the server's cost of those from baton's own.
 */
export async function noopChain(input: {
  steps: number;
  latencyMs: number[];
  local?: boolean;
  writes?: boolean;
}): Promise<number> {
  for (let i = 0; i < input.steps; i++) {
    await (input.local ? local.noop : noop)(input.latencyMs[i] ?? 0);
    if (input.writes && i >= 1 && i < input.steps - 1) {
      upsertSearchAttributes([
        { key: BatonAgent, value: `c${i}` },
        { key: BatonHandoffs, value: i },
      ]);
      upsertMemo({ [HANDOFF_MEMO]: { index: i, from: `c${i - 1}`, to: `c${i}`, message: `step ${i}` } });
    }
  }
  return input.steps;
}

export const releaseSignal = defineSignal('release');

/** A workflow that says it waits (as baton's search attribute does) and waits for a signal: the floor of a chain waiting for approval. */
export async function waitForSignal(): Promise<void> {
  upsertSearchAttributes([{ key: BatonStatusAttribute, value: 'awaiting_approval' }]);
  let released = false;
  setHandler(releaseSignal, () => void (released = true));
  await condition(() => released);
}
