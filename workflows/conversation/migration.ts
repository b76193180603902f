/**
 * A conversation's turns stranded by a deploy, and their migration onto the current team. A step of
 * the turn refused by a worker that lacks the turn's team strands the turn: its callers are told at
 * once (`TurnStrandedError`), the refusal goes on the record, and the turn waits for a worker of its
 * team instead of failing after `teamMismatchTimeout` — nothing of it is lost. A migration
 * (`migrateConversation`, `baton replay --on-current-team <id>`) takes the team the workers run now
 * and goes on with it: a stranded turn from its last step begun, the decisions people made in it
 * standing; between turns, from the next turn.
 */
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { ConversationState, CurrentTurn } from '../../src/common/conversation';
import { ConversationContinuedError, ConversationEndedError } from '../../src/common/conversationErrors';
import { TeamMismatchError, toApplicationFailure } from '../../src/common/errors';
import { CONVERSATION_EVENT_MEMO } from '../../src/common/messages';
import { Patches } from '../../src/common/patches';
import type { ChainState } from '../../src/common/state';
import type { ConversationMigration } from '../../src/common/stranded';
import type { TeamSpec } from '../../src/common/team';
import { versionIdOf } from '../../src/common/version';
import type { ChainEffects } from '../chain/effects';
import { restartPoint } from '../chain/restart';
import type { Chain } from '../chain/state';
import { hasPatch } from '../patches';
import { withKeptPolicy } from '../team/keptPolicy';
import { rebaseOnCurrentTeam } from '../team/rebase';
import type { TeamRefusal } from '../team/match';
import { recordTeam } from '../team/record';
import type { Inbox } from './inbox';
import { beginTurn, rolledBack } from './turns';
import { rebased, runningVersion } from './upgrade';

interface Waiter {
  resolve(value: ConversationMigration): void;
  reject(err: unknown): void;
}

/** What the migrations work on, known once the run has its state. */
export interface MigrationScene {
  state: ConversationState;
  chain: Chain;
  inbox: Inbox;
  effects: ChainEffects;
  /** The agent the conversation started with: it takes a turn whose agent the current team lacks. */
  startAgent: string;
}

/** Returned by {@link Migrations.guard} when a migration stopped the turn. */
export const MOVED = Symbol('moved');

export class Migrations {
  private scene?: MigrationScene;
  private readonly waiters: Waiter[] = [];
  private scope?: CancellationScope;
  private ended = false;
  /** A migration of a stranded turn is taking the current team's snapshot. */
  private snapshotting = false;

  constructor(private readonly workflowId: string) {}

  attach(scene: MigrationScene): void {
    this.scene = scene;
  }

  /** Whether a migration was asked for and not yet made. */
  get requested(): boolean {
    return this.waiters.length > 0;
  }

  /**
   * The update validator: a conversation that ended is not moved, nor one that is ending with nothing
   * left to answer. One ending answers the messages it took first, so a turn stranded then (or a
   * message behind it) is moved: refused, the end would wait for a worker of the old team for ever.
   */
  validate(): void {
    const scene = this.scene;
    const answering = scene !== undefined && (scene.state.current !== undefined || scene.inbox.queue.length > 0);
    if (this.ended || (scene?.state.ending && !answering))
      throw toApplicationFailure(new ConversationEndedError(this.workflowId, !this.ended));
  }

  /** A migration asked for: made at once for a stranded turn, else before the next turn. Answers once made. */
  request(): Promise<ConversationMigration> {
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (this.scene?.state.current?.stranded) this.scope?.cancel();
    });
  }

  /**
   * A step of the current turn was refused for its team (`refusal`), or taken after refusals
   * (`undefined`): whether it waits on past `teamMismatchTimeout`. Steps outside a turn, and runs
   * recorded before stranded turns, fail after the timeout as they did.
   */
  stranded(refusal: TeamRefusal | undefined): boolean {
    const scene = this.scene;
    const current = scene?.state.current;
    if (!scene || !current) return false;
    if (!refusal) {
      if (current.stranded) this.unstrand(current);
      return true;
    }
    if (!hasPatch(Patches.STRANDED_TURNS)) return false;
    // The migration's own snapshot is no step of the turn: it waits `teamMismatchTimeout`, no longer.
    if (this.snapshotting && hasPatch(Patches.MIGRATION_DURING_TURN_REFUSED)) return false;
    if (!current.stranded) {
      const { version, worker, step, missing } = refusal;
      const at = new Date(scene.effects.now()).toISOString();
      current.stranded = { version, worker, step, missing, since: at };
      scene.effects.publish({
        [CONVERSATION_EVENT_MEMO]: { type: 'turn_stranded', turn: current.turn, version, worker, step, missing, at },
      });
      scene.inbox.strand({ turn: current.turn, version, worker, step, missing });
    }
    if (this.requested) this.scope?.cancel();
    return true;
  }

  /** Run the turn's chain so that a migration can stop it where it waits; {@link MOVED} when one did. */
  async guard<T>(turn: () => Promise<T>): Promise<T | typeof MOVED> {
    const scope = new CancellationScope();
    this.scope = scope;
    try {
      return await scope.run(turn);
    } catch (err) {
      if (!this.requested || !isCancellation(err)) throw err;
      return MOVED;
    } finally {
      this.scope = undefined;
    }
  }

  /**
   * Move the stranded turn onto the current team, from its last step begun. No worker of the current
   * team took the snapshot within `teamMismatchTimeout`: the migration is refused with that, and the
   * turn goes on on its own team from its last step begun (stranded again if that is still refused).
   */
  async moveTurn(current: CurrentTurn): Promise<void> {
    const { chain, effects } = this.scene!;
    let team: TeamSpec;
    this.snapshotting = true;
    try {
      team = await effects.loadTeam();
    } catch (err) {
      if (!(err instanceof TeamMismatchError) || !hasPatch(Patches.MIGRATION_DURING_TURN_REFUSED)) throw err;
      // The turn goes on on its own team: stranded again, its callers told, if its step is still refused after the quick tries.
      chain.state = restartPoint(chain);
      chain.mark = undefined;
      this.unstrand(current);
      for (const w of this.waiters.splice(0)) w.reject(toApplicationFailure(err));
      return;
    } finally {
      this.snapshotting = false;
    }
    const restart = restartPoint(chain);
    const from = versionIdOf(chain.state.team);
    chain.state = withKeptPolicy(
      team.agents[restart.agentId]
        ? rebaseOnCurrentTeam(restart, team)
        : this.startedOver(restart, current, team, from),
      chain.state.team,
    );
    chain.mark = undefined;
    this.unstrand(current);
    this.made(from, team, current.turn, true);
  }

  /** Between turns: the next turn takes the current team. */
  async moveBetweenTurns(nextTurn: number): Promise<void> {
    const { chain, effects, startAgent } = this.scene!;
    let team: TeamSpec;
    try {
      team = await effects.loadTeam();
    } catch (err) {
      // No worker of the current team took the snapshot within `teamMismatchTimeout`: the migration
      // is refused with that, and the conversation goes on as it was, its next turn on its team.
      if (!(err instanceof TeamMismatchError) || !hasPatch(Patches.MIGRATION_REFUSED)) throw err;
      for (const w of this.waiters.splice(0)) w.reject(toApplicationFailure(err));
      return;
    }
    const from = versionIdOf(chain.state.team);
    const next = rebased(chain.state, team, startAgent);
    if (!next) {
      const refused = new TeamMismatchError({
        version: from,
        worker: versionIdOf(team),
        step: 'migration',
        missing: [`agent "${chain.state.agentId}"`, `agent "${startAgent}"`],
      });
      for (const w of this.waiters.splice(0)) w.reject(toApplicationFailure(refused));
      return;
    }
    chain.state = withKeptPolicy(next, chain.state.team);
    this.made(from, team, nextTurn, false);
  }

  /** The run continues as new, or the conversation ended, before a migration was made: its callers are told. */
  release(ended: boolean): void {
    this.ended = ended;
    const err = ended
      ? new ConversationEndedError(this.workflowId)
      : new ConversationContinuedError('migrateConversation', 0, 'migrate');
    for (const w of this.waiters.splice(0)) w.reject(toApplicationFailure(err));
  }

  /** The turn, its agent gone from the current team, starts over at the agent that answered before it (or the first one). */
  private startedOver(restart: ChainState, current: CurrentTurn, team: TeamSpec, from: string): ChainState {
    const { startAgent, effects } = this.scene!;
    const before = rebased(rolledBack(restart, current.before), team, startAgent);
    if (!before)
      throw new TeamMismatchError({
        version: from,
        worker: versionIdOf(team),
        step: 'migration',
        missing: [`agent "${restart.agentId}"`, `agent "${startAgent}"`],
      });
    return beginTurn(before, current.message, effects.now());
  }

  private unstrand(current: CurrentTurn): void {
    delete current.stranded;
    this.scene!.inbox.unstrand();
  }

  /** On the record, and answered: the conversation goes on with `team` from turn `turn`. */
  private made(from: string, team: TeamSpec, turn: number, during: boolean): void {
    const { state, chain, effects } = this.scene!;
    const here = runningVersion();
    if (here) state.teamDeployment = here;
    delete state.refreshTeam;
    const to = versionIdOf(team);
    recordTeam(effects, team, { from, to, beforeTurn: turn, ...(here ? { deployment: here } : {}), by: 'migration' });
    effects.publish({
      [CONVERSATION_EVENT_MEMO]: {
        type: 'team_changed',
        from,
        to,
        beforeTurn: turn,
        ...(here ? { deployment: here } : {}),
        agent: chain.state.agentId,
        at: new Date(effects.now()).toISOString(),
        by: 'migration',
      },
    });
    for (const w of this.waiters.splice(0)) w.resolve({ from, to, ...(during ? { turn } : {}) });
  }
}
