/**
 * The engine's floor: minimal workflows on the same server, for ratios against baton.
 * Deterministic workflow code only.
 */
import { condition, defineSignal, proxyActivities, proxyLocalActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { BatonStatusAttribute } from '../../src/common/messages';
import type * as activities from './activities';

const { noop } = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });
const local = proxyLocalActivities<typeof activities>({ startToCloseTimeout: '1 minute' });

/** `steps` sequential no-op activities: what a chain's activities cost with no logic around them. */
export async function noopChain(input: { steps: number; latencyMs: number[]; local?: boolean }): Promise<number> {
  for (let i = 0; i < input.steps; i++) await (input.local ? local.noop : noop)(input.latencyMs[i] ?? 0);
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
