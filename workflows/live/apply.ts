/**
 * The loop's fixed points for steering: waiting messages join the current agent's conversation as
 * user messages (each on the record with who sent it), and an interrupted model call is recorded.
 */
import { LIMITS } from '../../src/common/limits';
import type { LiveRecord } from '../../src/common/live';
import { LIVE_MEMO } from '../../src/common/messages';
import type { ChainRun } from '../chain/step';
import type { ModelCallInterrupted } from './steering';

/** Apply the steering messages that wait; `true` when there were some (the model is to be asked again). */
export function applySteering(run: Pick<ChainRun, 'chain' | 'effects' | 'steering'>): boolean {
  const taken = run.steering?.take() ?? [];
  if (taken.length === 0) return false;
  const { chain, effects } = run;
  chain.apply({ type: 'steered', messages: taken.map((m) => m.text) });
  const at = new Date(effects.now()).toISOString();
  const turn = effects.streamTag?.()?.turn;
  for (const m of taken) {
    const record: LiveRecord = { type: 'steered', steerId: m.id, by: m.by, text: m.text.slice(0, LIMITS.recordedSteerChars), chars: m.text.length, agent: chain.state.agentId, interrupt: m.interrupt, at, receivedAt: m.at, ...(turn !== undefined ? { turn } : {}) };
    effects.publish({ [LIVE_MEMO]: record });
  }
  return true;
}

/** Put an interrupted model call on the record. */
export function recordInterrupt(run: ChainRun, stopped: ModelCallInterrupted): void {
  const turn = run.effects.streamTag?.()?.turn;
  const record: LiveRecord = { type: 'interrupted', agent: stopped.call.agentId, call: `${stopped.call.agentId}#${stopped.call.callIndex}`, by: stopped.by, at: new Date(run.effects.now()).toISOString(), ...(turn !== undefined ? { turn } : {}) };
  run.effects.publish({ [LIVE_MEMO]: record });
}
