/**
 * The chain state a run's start carries, for the approval desk to judge what arrives before the run
 * has attached its chain. A decision sent while a chain or a conversation continues as new reaches
 * the next run with its start, in its first activation: its update validator runs as the run
 * registers its handlers, before the run has read its input and built the state it carries, and the
 * approval the decision names is waiting in that state.
 *
 * Pure: no Temporal API, no I/O.
 */
import { resolveRunOptions } from '../../src/common/options';
import type { ChainState } from '../../src/common/state';

/**
 * The state `read` returns from the run's start (validating it as the run will), read once, when
 * first asked; `undefined` for a start that carries none or that the run will refuse (the run
 * fails with that start's problems itself, so nothing is judged against it).
 */
export function carriedChain(read: () => ChainState | undefined): () => ChainState | undefined {
  let carried: { state?: ChainState } | undefined;
  return () => {
    carried ??= readOnce(read);
    return carried.state;
  };
}

function readOnce(read: () => ChainState | undefined): { state?: ChainState } {
  try {
    const state = read();
    return state ? { state: { ...state, options: resolveRunOptions(state.options) } } : {};
  } catch {
    return {};
  }
}
