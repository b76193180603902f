/** Controlled chain runs on fake effects, and the model answers that hand off or call a tool in them. */
import type { RunOptions } from '../../src/common/options';
import type { AgentSpec } from '../../src/common/team';
import type { ChainRun } from '../../workflows/loop';
import { type FakeEffects, fakeRun } from '../helpers/fakeEffects';

/** A model answer that hands off to `to` with `message`. */
export const hop = (to: string, message = `over to ${to}`) => ({ calls: [{ name: 'handoff', args: { to, message } }] });

/** A model answer that calls the tool `name` with `args`. */
export const call = (name: string, args: Record<string, unknown> = {}) => ({ calls: [{ name, args }] });

/** A run of `agents` on `effects` with the chain's controls on, starting at the first agent with `input`. */
export function controlled(
  agents: AgentSpec[],
  effects: FakeEffects,
  options: RunOptions = {},
  input = 'go',
): ChainRun {
  return fakeRun(agents, effects, options, agents[0]!.id, input, { controls: true });
}
