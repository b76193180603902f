/**
 * What every step of the loop works with: the chain, its effects and approval desk, and the ports
 * features implement for it (the guards, the economy's spend limits and shared breakers, steering).
 * Declared here, below the steps and the controls that take it, so features import the kernel and
 * never the other way round.
 */
import type { CallTokens } from '../../src/common/economics/prices';
import type { HandoffResult } from '../../src/common/handoff';
import type { ModelResponse } from '../../src/common/model';
import type { ChainState } from '../../src/common/state';
import type { ApprovalDesk } from './desk';
import type { ChainEffects } from './effects';
import type { Chain } from './state';
import type { FinalAnswer, Verdict } from './verdict';

/** What the loop works with. */
export interface ChainRun {
  chain: Chain;
  effects: ChainEffects;
  guards: GuardPort;
  desk: ApprovalDesk;
  /** Spend limits and shared breakers (runs started with `baton-economics` whose team has them). */
  economy?: EconomyPort;
  /** Steering messages waiting for the next step (chains that take steering). */
  steering?: SteeringPort;
}

/**
 * What the chain asks of its guards (`Guards` in `guards/guard.ts`) at the named points of the
 * loop: a {@link Verdict} read from the state alone. A guard issues no commands; a check that calls
 * an activity (the guardrails, `guardrails.ts`) is a step of the chain.
 */
export interface GuardPort {
  /** Before each model call of the current agent. */
  beforeModelCall(state: ChainState): Verdict;
  /** After each model answer, before its tools run. */
  afterModelResponse(state: ChainState, response: ModelResponse): Verdict;
  /** Before a handoff goes ahead. */
  beforeHandoff(state: ChainState, handoff: HandoffResult): Verdict;
  /** When an agent answers without tool calls, before the answer ends the chain. */
  onFinish(state: ChainState, answer: FinalAnswer): Verdict;
  /** Before a task is delegated to specialist `to`. */
  beforeDelegation(state: ChainState, to: string): Verdict;
  /** Once an answer passed every check (guardrails included), before it ends the chain. */
  onComplete(state: ChainState): Verdict;
}

/**
 * What the chain asks of its steering (`Steering` in `live/steering.ts`) at the loop's fixed
 * points: the messages that wait, joined to the current agent's conversation, and a model call an
 * interrupt stopped, put on the record.
 */
export interface SteeringPort {
  /** Apply the steering messages that wait; `true` when there were some (the model is to be asked again). */
  apply(run: Pick<ChainRun, 'chain' | 'effects'>): boolean;
  /** Whether `err` is a model call an interrupt stopped; when it is, it is on the record and the model is asked again. */
  interrupted(run: Pick<ChainRun, 'effects'>, err: unknown): boolean;
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
