/**
 * When a chain's run hands over to a fresh one (continue as new): asked between steps, while an
 * approval waits and between a conversation's turns.
 */
import type { ChainRun } from './run';

/**
 * Whether the run should continue as new now: see `ChainEffects.shouldContinueAsNew`. A run
 * that has made no step of its own yet (`progressed` false) does so only before Temporal's limits
 * (runs with the `baton-inbox-bounds` patch), so a small `continueAsNewAfterEvents` cannot spin —
 * or, given `since` (the events its run had when a wait began), once `continueAsNewAfterEvents`
 * more have arrived while it waits.
 */
export function handOverDue(
  run: Pick<ChainRun, 'chain' | 'effects' | 'desk'>,
  progressed = true,
  since?: number,
): boolean {
  const { chain, effects, desk } = run;
  if (!progressed && !desk.inboxBounds) return false;
  const every = chain.state.options.continueAsNewAfterEvents;
  if (progressed) return effects.shouldContinueAsNew(every, desk.inboxBounds);
  const grown = since !== undefined && every > 0 && effects.historyLength() >= since + every;
  return grown || effects.shouldContinueAsNew(0, desk.inboxBounds);
}
