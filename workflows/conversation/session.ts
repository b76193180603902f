/**
 * A conversation's run: take each message in the order it arrived, answer it with the chain
 * runner (handoffs and approvals included, the active agent kept between messages), compact the
 * active agent's conversation as it grows, wait for the next message under the idle timeout, and
 * say when to end or continue as new.
 */
import { TemporalFailure } from '@temporalio/common';
import { allHandlersFinished, isCancellation } from '@temporalio/workflow';
import { durationMs } from '../../src/common/check';
import type {
  ConversationEnd,
  ConversationResult,
  ConversationState,
  ConversationView,
  RememberedReply,
} from '../../src/common/conversation';
import { BatonError, toApplicationFailure, UnexpectedWorkflowError } from '../../src/common/errors';
import { CONVERSATION_EVENT_MEMO, PENDING_MEMO, TURN_MEMO } from '../../src/common/messages';
import { BatonStatus } from '../../src/common/run';
import type { ApprovalDesk } from '../chain/desk';
import type { ChainEffects } from '../chain/effects';
import type { Chain } from '../chain/state';
import type { GuardPort } from '../chain/run';
import { runChain } from '../loop';
import { handOverDue } from '../chain/handOver';
import { compact } from './compaction';
import type { Inbox } from './inbox';
import { addUsage, beginTurn, currentTurn, remember, replyOf, rolledBack } from './turns';
import { movesToCurrentVersion, refreshBeforeTurn } from './upgrade';
import { TeamMismatchError } from '../../src/common/errors';
import type { Economy } from '../economics/economy';
import { withEconomics } from '../economics/costs';
import { compactionCost, conversationBudget } from './costs';
import type { CurrentTurn } from '../../src/common/conversation';
import { MessageRolledBackError } from '../../src/common/conversationErrors';
import type { LiveRecord } from '../../src/common/live';
import { LIVE_MEMO } from '../../src/common/messages';
import type { ChainOutcome } from '../loop';
import { handBack } from '../live/handBack';
import type { Steering } from '../live/steering';
import type { MidTurn } from './midTurn';
import { type Migrations, MOVED } from './migration';

/** How a run of the conversation ends: closed, or handed to a fresh run. */
export type SessionOutcome =
  { kind: 'ended'; result: ConversationResult } | { kind: 'continue_as_new'; upgrade?: boolean };

export class Session {
  private readonly turnEffects: ChainEffects;
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
      if (await this.compact()) progressed = true;
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
    const s = this.state;
    const pending = this.desk.pendingInTree();
    const current = s.current;
    const busy = current?.stranded ? 'waiting_for_worker' : pending.length > 0 ? 'awaiting_approval' : 'answering';
    return {
      status: this.result ? 'ended' : s.ending && !current ? 'ending' : current ? busy : 'idle',
      activeAgent: this.chain.state.agentId,
      turns: s.turns,
      ...(current
        ? {
            current: {
              turn: current.turn,
              message: current.message,
              idempotencyKey: current.idempotencyKey,
              ...(current.stranded ? { stranded: current.stranded } : {}),
            },
          }
        : {}),
      queued: this.inbox.queue.length,
      pendingApprovals: pending,
      usage: s.usage,
      handoffs: s.handoffs + (current ? this.chain.state.chain.length : 0),
      compactions: s.compactions,
      runs: s.continuedRuns + 1,
      ...(this.lastReply ? { lastReply: this.lastReply } : {}),
    };
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
      const outcome = await this.runTurn(current);
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

  /** The chain of the current turn, taken up again on the current team when a migration moves it. */
  private async runTurn(current: CurrentTurn): Promise<ChainOutcome> {
    if (!this.migrations) return this.runTurnHere(current);
    for (;;) {
      const ran = await this.migrations.guard(() => this.runTurnHere(current));
      if (ran !== MOVED) return ran;
      await this.migrations.moveTurn(current);
    }
  }

  /** The chain of the current turn; a rollback for a later message throws `MessageRolledBackError`. */
  private async runTurnHere(current: CurrentTurn): Promise<ChainOutcome> {
    const run = () =>
      this.economy
        ? this.pricedTurn(this.economy)
        : runChain({
            chain: this.chain,
            effects: this.turnEffects,
            guards: this.guards,
            desk: this.desk,
            ...(this.live ? { steering: this.live.steering } : {}),
          });
    if (!this.live) return run();
    const steering = this.live.steering;
    for (;;) {
      const ran = await this.live.midTurn.run(run);
      if ('rolledBack' in ran) throw new MessageRolledBackError(this.effects.workflowId, current.turn, ran.rolledBack);
      // A message that joined the turn as it was being answered: the model answers it too.
      if (ran.value.kind !== 'completed' || steering.waiting.length === 0) return ran.value;
      steering.apply({ chain: this.chain, effects: this.turnEffects });
    }
  }

  /** The chain of a turn under spend limits or shared breakers: the news it sent them are all out before it ends. */
  private async pricedTurn(economy: Economy): Promise<ChainOutcome> {
    try {
      return await runChain({
        chain: this.chain,
        effects: this.turnEffects,
        guards: this.guards,
        desk: this.desk,
        ...(this.live ? { steering: this.live.steering } : {}),
        economy,
      });
    } finally {
      await economy.flush();
    }
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

  /** Compact the active agent's conversation if it has grown past the threshold; `true` when it did. */
  private async compact(): Promise<boolean> {
    const done = await compact(this.chain.state, this.state.conversation, this.effects);
    if (!done) return false;
    const { state, usage, ...record } = done;
    this.chain.state = state;
    this.state.compactions += 1;
    this.state.usage = addUsage(this.state.usage, {
      ...usage,
      totalTokens: usage.inputTokens + usage.outputTokens,
      modelCalls: 1,
      toolCalls: 0,
      ...compactionCost(state, usage),
    });
    this.economy?.charge(this.chain.state, this.effects, usage);
    // Between turns: every message taken is answered but those still queued.
    const afterTurn = this.state.turns - this.inbox.queue.length;
    this.effects.publish({
      [CONVERSATION_EVENT_MEMO]: {
        type: 'compacted',
        afterTurn,
        agent: state.agentId,
        ...record,
        at: iso(this.effects.now()),
      },
    });
    return true;
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

/** A turn's failure as its callers get it: baton's errors typed, Temporal's as they are, anything else as a defect. */
function failureOf(err: unknown): { type: string; message: string; details?: unknown } {
  if (err instanceof BatonError) return { type: err.name, message: err.message, details: err.details };
  if (err instanceof TemporalFailure)
    return { type: (err as { type?: string }).type ?? err.name, message: err.message };
  const e = err instanceof Error ? err : new Error(String(err));
  const defect = new UnexpectedWorkflowError(e.name, e.message, e.stack);
  return { type: defect.name, message: defect.message, details: toApplicationFailure(defect).details?.[0] };
}
