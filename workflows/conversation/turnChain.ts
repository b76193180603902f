/**
 * The chain of a conversation's turn: run by the chain runner, taken up again on the current team
 * when a migration moves it, answered with the steering messages that joined it, under spend limits
 * and shared breakers when the team has them; and its failure as the turn's callers get it.
 */
import { TemporalFailure } from '@temporalio/common';
import type { CurrentTurn } from '../../src/common/conversation';
import { MessageRolledBackError } from '../../src/common/conversationErrors';
import { BatonError, toApplicationFailure, UnexpectedWorkflowError } from '../../src/common/errors';
import type { ApprovalDesk } from '../chain/desk';
import type { ChainEffects } from '../chain/effects';
import type { GuardPort } from '../chain/run';
import type { Chain } from '../chain/state';
import type { Economy } from '../economics/economy';
import type { Steering } from '../live/steering';
import { type ChainOutcome, runChain } from '../loop';
import type { MidTurn } from './midTurn';
import { type Migrations, MOVED } from './migration';

/** What a turn's chain runs with: the session's chain, desk and guards, and the features it has. */
export interface TurnParts {
  chain: Chain;
  /** The effects the turn's chain runs with (handoffs counted across the conversation). */
  turnEffects: ChainEffects;
  /** The conversation's run: its workflow id. */
  effects: ChainEffects;
  guards: GuardPort;
  desk: ApprovalDesk;
  /** Steering, mid-turn policies and hand-backs (conversations that started with the live patch). */
  live?: { steering: Steering; midTurn: MidTurn };
  /** Spend limits and shared breakers, when the conversation's team has them. */
  economy?: Economy;
  /** Turns stranded by a deploy, and migrations onto the current team. */
  migrations?: Migrations;
}

/** The chain of the current turn, taken up again on the current team when a migration moves it. */
export async function runTurn(current: CurrentTurn, parts: TurnParts): Promise<ChainOutcome> {
  const { migrations } = parts;
  if (!migrations) return runTurnHere(current, parts);
  for (;;) {
    const ran = await migrations.guard(() => runTurnHere(current, parts));
    if (ran !== MOVED) return ran;
    await migrations.moveTurn(current);
  }
}

/** The chain of the current turn; a rollback for a later message throws `MessageRolledBackError`. */
async function runTurnHere(current: CurrentTurn, parts: TurnParts): Promise<ChainOutcome> {
  const { chain, turnEffects, guards, desk, live, economy } = parts;
  const run = () =>
    economy
      ? pricedTurn(parts, economy)
      : runChain({ chain, effects: turnEffects, guards, desk, ...(live ? { steering: live.steering } : {}) });
  if (!live) return run();
  const steering = live.steering;
  for (;;) {
    const ran = await live.midTurn.run(run);
    if ('rolledBack' in ran) throw new MessageRolledBackError(parts.effects.workflowId, current.turn, ran.rolledBack);
    // A message that joined the turn as it was being answered: the model answers it too.
    if (ran.value.kind !== 'completed' || steering.waiting.length === 0) return ran.value;
    steering.apply({ chain, effects: turnEffects });
  }
}

/** The chain of a turn under spend limits or shared breakers: the news it sent them are all out before it ends. */
async function pricedTurn(parts: TurnParts, economy: Economy): Promise<ChainOutcome> {
  const { chain, turnEffects, guards, desk, live } = parts;
  try {
    return await runChain({
      chain,
      effects: turnEffects,
      guards,
      desk,
      ...(live ? { steering: live.steering } : {}),
      economy,
    });
  } finally {
    await economy.flush();
  }
}

/** A turn's failure as its callers get it: baton's errors typed, Temporal's as they are, anything else as a defect. */
export function failureOf(err: unknown): { type: string; message: string; details?: unknown } {
  if (err instanceof BatonError) return { type: err.name, message: err.message, details: err.details };
  if (err instanceof TemporalFailure)
    return { type: (err as { type?: string }).type ?? err.name, message: err.message };
  const e = err instanceof Error ? err : new Error(String(err));
  const defect = new UnexpectedWorkflowError(e.name, e.message, e.stack);
  return { type: defect.name, message: defect.message, details: toApplicationFailure(defect).details?.[0] };
}
