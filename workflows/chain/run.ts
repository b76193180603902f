/**
 * What every step of the loop works with: the chain, its effects, its guards and approval desk, and
 * the ports features implement for it (the economy's spend limits and shared breakers, steering).
 * Declared here, below the steps and the controls that take it, so features import the kernel and
 * never the other way round.
 */
import type { SteerMessage } from '../../src/common/live';
import type { CallTokens } from '../../src/common/economics/prices';
import type { ChainState } from '../../src/common/state';
import type { Guards, Verdict } from '../guards';
import type { ApprovalDesk } from './desk';
import type { ChainEffects } from './effects';
import type { Chain } from './state';

/** What the loop works with. */
export interface ChainRun {
  chain: Chain;
  effects: ChainEffects;
  guards: Guards;
  desk: ApprovalDesk;
  /** Spend limits and shared breakers (runs started with `baton-economics` whose team has them). */
  economy?: EconomyPort;
  /** Steering messages waiting for the next step (chains that take steering). */
  steering?: { take(): SteerMessage[] };
}

/**
 * What the chain asks of its economy (`Economy` in `economics/economy.ts`): a reservation before
 * each model call and its settlement after, charges for calls made outside a turn, and the shared
 * breakers of handoff and delegation targets.
 */
export interface EconomyPort {
  /** Before the current agent's model call: reserve its worst case in every spend limit's ledger. */
  beforeCall(run: ChainRun): Promise<void>;
  /** After the call: what it cost is settled in the ledgers that reserved it (nothing when it failed). */
  afterCall(tokens: CallTokens | undefined): void;
  /** A model call made without a reservation (a handoff's summary, routing, a compaction): its cost goes to the ledgers as it is. */
  charge(s: ChainState, effects: Pick<ChainEffects, 'now' | 'newId'>, tokens: CallTokens): void;
  /** Before a handoff or delegation from `from` to `to`: what the target's shared breaker says. */
  beforeTarget(run: ChainRun, from: string, to: string, what: string): Promise<Verdict>;
  /** A failure of `agent` in this chain: its shared breaker counts it. */
  noteFailure(run: ChainRun, agent: string, reason: string): void;
  /** `agent` finished its work here without failing. */
  noteSuccess(run: ChainRun, agent: string): void;
}
