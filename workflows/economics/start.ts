/**
 * Economics at a chain's start: costs counted from here, the context checked for the keys the
 * team's spend limits and shared breakers are kept by, and the chain's part in them when it has any.
 */
import { InvalidRunInputError } from '../../src/common/errors';
import type { ChainState } from '../../src/common/state';
import { withEconomics } from './costs';
import { contextProblems, Economy } from './economy';
import { temporalEconomics } from './effects';

/** `state` with its economics, and the chain's {@link Economy} when its team has limits or shared breakers. */
export function economicsOf(
  state: ChainState,
  conversation?: NonNullable<ChainState['economics']>['conversation'],
): { state: ChainState; economy?: Economy } {
  const priced = state.economics ? state : withEconomics(state, conversation);
  const problems = contextProblems(priced);
  if (problems.length > 0) throw new InvalidRunInputError(problems);
  const e = priced.team.economics;
  const shared = (e?.spendLimits?.length ?? 0) > 0 || e?.sharedBreakers !== undefined;
  return shared ? { state: priced, economy: new Economy(temporalEconomics()) } : { state: priced };
}
