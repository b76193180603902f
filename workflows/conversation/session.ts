/**
 * A conversation's run: take each message in the order it arrived, answer it with the chain
 * runner (handoffs and approvals included, the active agent kept between messages), compact the
 * active agent's conversation as it grows, wait for the next message under the idle timeout, and
 * say when to end or continue as new.
 */
import { allHandlersFinished, isCancellation } from '@temporalio/workflow';
import { durationMs } from '../../src/common/check';
import type {
  ConversationEnd,
  ConversationResult,
  ConversationState,
  ConversationView,
  RememberedReply,
} from '../../src/common/conversation';
import { CONVERSATION_EVENT_MEMO, PENDING_MEMO, TURN_MEMO } from '../../src/common/messages';
import { BatonStatus } from '../../src/common/run';
import type { ApprovalDesk } from '../chain/desk';
import type { ChainEffects } from '../chain/effects';
import type { Chain } from '../chain/state';
import type { GuardPort } from '../chain/run';
import { handOverDue } from '../chain/handOver';
import { compactBetweenTurns } from './compaction';
import type { Inbox } from './inbox';
import { addUsage, beginTurn, currentTurn, remember, replyOf, rolledBack } from './turns';
import { failureOf, runTurn, type TurnParts } from './turnChain';
import { movesToCurrentVersion, refreshBeforeTurn } from './upgrade';
import { TeamMismatchError } from '../../src/common/errors';
import type { Economy } from '../economics/economy';
import { withEconomics } from '../economics/costs';
import { conversationBudget } from './costs';
import type { LiveRecord } from '../../src/common/live';
import { LIVE_MEMO } from '../../src/common/messages';
import { handBack } from '../live/handBack';
import type { Steering } from '../live/steering';
import type { MidTurn } from './midTurn';
import type { Migrations } from './migration';
import { conversationView } from './view';

/** How a run of the conversation ends: closed, or handed to a fresh run. */
export type SessionOutcome =
  { kind: 'ended'; result: ConversationResult } | { kind: 'continue_as_new'; upgrade?: boolean };

export class Session {
  private readonly turnEffects: ChainEffects;
  /** What each turn's chain runs with. */
  private readonly turn: TurnParts;
  private lastReply?: RememberedReply['reply'];
  private result?: ConversationResult;

  constructor(
    /** Mutable: the inbox counts turns and marks the end on the same object. */
    readonly state: ConversationState,
    private readonly chain: Chain,
    private readonly inbox: Inbox,
    private readonly effects: ChainEffects,
    private readonly desk: ApprovalDesk,
    private readonly guards: GuardPort,
    /** The agent the conversation started with: it answers when the team no longer has the active agent. */
    private readonly startAgent: string = chain.state.agentId,
    /** Steering, mid-turn policies and hand-backs (conversations that started with the live patch). */
    private readonly live?: { steering: Steering; midTurn: MidTurn },
    /** Spend limits and shared breakers, when the conversation's team has them. */
    private readonly economy?: Economy,
    /** Turns stranded by a deploy, and migrations onto the current team. */
    private readonly migrations?: Migrations,
  ) {
    // Handoffs are counted across the conversation in `BatonHandoffs`, not per message.
    this.turnEffects = Object.assign(Object.create(effects) as ChainEffects, {
      setAgent: (agent: string, handoffs: number) => effects.setAgent(agent, this.state.handoffs + handoffs),
    });
    this.turn = { chain, turnEffects: this.turnEffects, effects, guards, desk, live, economy, migrations };
  }

  /** Answer messages until the conversation ends or the run should continue as new. */
  async run(): Promise<SessionOutcome> {
    // A run continues as new only after work of its own, so a small history limit cannot spin.
    let progressed = false;
    for (;;) {
      if (this.state.current) {
        if (await this.answer()) return { kind: 'continue_as_new' };
        progressed = true;
        continue;
      }
      await this.desk.drain();
      if (this.migrations?.requested)
        await this.migrations.moveBetweenTurns(this.inbox.queue[0]?.turn ?? this.state.turns + 1);
      const queued = () => this.inbox.queue.length;
      if (await compactBetweenTurns(this.state, this.chain, this.effects, this.economy, queued)) progressed = true;
      // Between turns; with nothing answered yet only before Temporal's limits, so a waiting conversation flooded with signals hands over too.
      if (handOverDue({ chain: this.chain, effects: this.effects, desk: this.desk }, progressed))
        return { kind: 'continue_as_new' };
      if (this.inbox.queue.length > 0) {
        // Between turns only: onto the deployment's current version, with its team.
        if (movesToCurrentVersion()) return { kind: 'continue_as_new', upgrade: true };
        await refreshBeforeTurn(this.state, this.chain, this.effects, this.startAgent, this.inbox.queue[0]!.turn);
        this.begin();
        continue;
      }
      if (this.state.ending) return this.end('requested');
      if (await this.idle()) return this.end('idle_timeout');
    }
  }

  /** What the `conversation` query answers. */
  view(): ConversationView {
    const queued = this.inbox.queue.length;
    const ended = this.result !== undefined;
    return conversationView(this.state, {
      chain: this.chain,
      desk: this.desk,
      queued,
      lastReply: this.lastReply,
      ended,
    });
  }

  /**
   * Before continuing as new: callers still waiting are told to send again (the next run has their
   * messages), and the handlers are let finish. Decisions that arrive meanwhile are applied, so the
   * next run carries them.
   */
  async handOver(): Promise<ConversationState> {
    // Steering messages still waiting go with the turn into the next run.
    if (this.live) this.live.steering.apply({ chain: this.chain, effects: this.effects });
    for (;;) {
      this.inbox.releaseForNextRun();
      this.migrations?.release(false);
      await this.desk.drain();
      if (allHandlersFinished()) break;
      await this.effects.condition(
        () =>
          allHandlersFinished() || this.inbox.hasWaiters || this.desk.hasMail || this.migrations?.requested === true,
      );
    }
    return { ...this.state, queued: this.inbox.carried(), continuedRuns: this.state.continuedRuns + 1 };
  }

  /** Start answering the next message. */
  private begin(): void {
    const { waiters: _waiting, ...m } = this.inbox.next()!;
    const now = this.effects.now();
    this.state.current = currentTurn(m, this.chain.state, now);
    this.chain.mark = undefined;
    const fresh = beginTurn(this.chain.state, m.message, now);
    this.chain.state = this.chain.state.economics ? withEconomics(fresh, conversationBudget(this.state)) : fresh;
    this.effects.publish({
      [TURN_MEMO]: {
        phase: 'started',
        turn: m.turn,
        idempotencyKey: m.idempotencyKey,
        ...(m.updateId ? { updateId: m.updateId } : {}),
        agent: this.chain.state.agentId,
        at: iso(now),
      },
    });
  }

  /** Run the current message's chain; `true` when the run is to continue as new first. */
  private async answer(): Promise<boolean> {
    const current = this.state.current!;
    try {
      const outcome = await runTurn(current, this.turn);
      await this.desk.drain();
      if (outcome.kind === 'continue_as_new') return true;
      const reply = replyOf(current, this.chain.state, outcome.result.output);
      const back = this.live ? this.handBack(current.turn) : undefined;
      this.finish({ idempotencyKey: current.idempotencyKey, reply: back ? { ...reply, handedBackTo: back } : reply });
    } catch (err) {
      if (isCancellation(err)) throw err;
      const failure = failureOf(err);
      const waited = this.chain.state.approvals.pending.length > 0;
      // No worker had the conversation's team: the next turn starts with the team the workers have.
      if (failure.type === TeamMismatchError.name) this.state.refreshTeam = true;
      this.finish({
        idempotencyKey: current.idempotencyKey,
        failure: {
          type: failure.type,
          message: failure.message,
          ...(failure.details !== undefined ? { details: failure.details } : {}),
        },
      });
      this.chain.state = rolledBack(this.chain.state, current.before);
      if (waited) {
        this.effects.publish({ [PENDING_MEMO]: [] });
        this.effects.setStatus(BatonStatus.RUNNING);
      }
    }
    return false;
  }

  /** Hand the conversation back when the answered turn asks for it (`returnTo`); the agent it goes to. */
  private handBack(turn: number): string | undefined {
    const back = handBack(this.chain.state);
    if (!back) return undefined;
    this.chain.state = back.state;
    this.effects.setAgent(back.to, this.state.handoffs + back.state.chain.length);
    const record: LiveRecord = {
      type: 'handed_back',
      afterTurn: turn,
      from: back.from,
      to: back.to,
      returnTo: back.returnTo,
      at: iso(this.effects.now()),
    };
    this.effects.publish({ [LIVE_MEMO]: record });
    return back.to;
  }

  /** The current turn is over: count it, remember its outcome, put it on the record and tell its callers. */
  private finish(outcome: RememberedReply): void {
    const s = this.state;
    const turn = s.current!.turn;
    const now = this.effects.now();
    s.usage = addUsage(s.usage, this.chain.state.usage);
    s.handoffs += this.chain.state.chain.length;
    s.replies = remember(s.replies, outcome, s.conversation.idempotencyWindow);
    // Messages answered with this one (they interrupted it) get the same outcome when sent again.
    for (const key of s.current!.merged ?? [])
      s.replies = remember(s.replies, { ...outcome, idempotencyKey: key }, s.conversation.idempotencyWindow);
    s.lastActiveAt = iso(now);
    delete s.current;
    const failure = outcome.failure ? { type: outcome.failure.type, message: outcome.failure.message } : undefined;
    this.effects.publish({
      [TURN_MEMO]: {
        phase: outcome.reply ? 'answered' : 'failed',
        turn,
        ...(outcome.reply ? { reply: outcome.reply } : { failure }),
        at: iso(now),
      },
    });
    if (outcome.reply) this.lastReply = outcome.reply;
    this.inbox.settle(outcome);
  }

  /** Wait for a message, an end request or a decision; `true` when the idle timeout passed first. */
  private async idle(): Promise<boolean> {
    const timeout = durationMs(this.state.conversation.idleTimeout)!;
    const timer = this.effects.timer(Math.max(1, Date.parse(this.state.lastActiveAt) + timeout - this.effects.now()));
    const woken = () =>
      this.inbox.queue.length > 0 ||
      this.state.ending === true ||
      this.desk.hasMail ||
      this.migrations?.requested === true;
    await this.effects.condition(() => woken() || timer.fired);
    // A message that arrived with the timer's firing wins over the timeout.
    const wokenUp = woken();
    timer.cancel();
    return !wokenUp;
  }

  private end(endedBy: ConversationEnd): SessionOutcome {
    const s = this.state;
    const now = this.effects.now();
    const result: ConversationResult = {
      endedBy,
      turns: s.turns,
      agent: this.chain.state.agentId,
      handoffs: s.handoffs,
      compactions: s.compactions,
      usage: s.usage,
      runs: s.continuedRuns + 1,
    };
    this.effects.publish({ [CONVERSATION_EVENT_MEMO]: { type: 'ended', endedBy, turns: s.turns, at: iso(now) } });
    this.effects.setStatus(BatonStatus.COMPLETED);
    this.result = result;
    this.inbox.ended(result);
    this.migrations?.release(true);
    return { kind: 'ended', result };
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
