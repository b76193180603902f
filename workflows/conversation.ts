/**
 * The `conversation` workflow: wiring only. It stays open for messages (`sendMessage` updates,
 * the first one possibly with the start), answers each with a chain of the active agent, and
 * continues as new as its history grows, carrying the whole conversation.
 */
import {
  isCancellation,
  makeContinueAsNewFunc,
  setHandler,
  setWorkflowOptions,
  workflowInfo,
} from '@temporalio/workflow';
import { hasPatch } from './patches';
import { arrival, rawArgs } from './arrivals';
import { noteUpdate } from './historyLimits';
import { receivePolicyUpdates } from './authority/policy';
import { answerChainQueries, chainPorts, failureOf, nextRunAttributes, receiveDecisions, startAgentOf } from './wiring';
import type {
  ConversationInput,
  ConversationResult,
  ConversationState,
  SendMessageInput,
} from '../src/common/conversation';
import { InputTooLargeError, InvalidRunInputError, toApplicationFailure, type UserError } from '../src/common/errors';
import { validateConversationInput } from '../src/common/input';
import {
  conversationQuery,
  endConversationUpdate,
  migrateConversationUpdate,
  messageQuery,
  sendMessageUpdate,
} from '../src/common/messages';
import { Patches } from '../src/common/patches';
import { LIMITS } from '../src/common/limits';
import { resolveConversationOptions } from '../src/common/conversationOptions';
import { resolveRunOptions } from '../src/common/options';
import { BatonStatus } from '../src/common/run';
import { carriedChain } from './chain/carried';
import { Chain, carryOver } from './chain/state';
import { Inbox } from './conversation/inbox';
import { Session } from './conversation/session';
import { startConversation } from './conversation/turns';
import { runningVersion } from './conversation/upgrade';
import { recordTeam } from './team/record';
import { enterTenant } from './tenant';
import { defaultGuards } from './guards';
import { economicsOf } from './economics/start';
import { conversationBudget } from './conversation/costs';
import { MidTurn } from './conversation/midTurn';
import { Migrations } from './conversation/migration';

/**
 * A multi-turn conversation starting at `input.agent`. Each message is answered by a chain that
 * starts at the active agent (handoffs and approvals on any turn, the last agent staying active);
 * messages sent while one is answered wait in arrival order. Ends on `endConversation` or after
 * `idleTimeout` without a message.
 */
export async function conversation(startInput: ConversationInput): Promise<ConversationResult> {
  // Read here, not by the SDK: a start that is not JSON fails the conversation with InvalidRunInputError.
  const rawInput = arrival(startInput);
  // What arrives from outside is held to LIMITS; specialists get tokens and decisions are forwarded to them.
  const bounded = hasPatch(Patches.BOUNDS);
  const signatures = bounded && hasPatch(Patches.SIGNATURES);
  // Costs, budgets in money, spend limits and shared breakers.
  const economics = bounded && hasPatch(Patches.ECONOMICS);
  let session: Session | undefined;
  let chain: Chain | undefined;
  const live = hasPatch(Patches.LIVE);
  const migrations = new Migrations(workflowInfo().workflowId);
  // Refusals tallied per drain, and every wait continues as new before Temporal's limits.
  const inboxBounds = bounded && hasPatch(Patches.INBOX_BOUNDS);
  // A decision that comes with the start is judged against the state the start carries.
  const startState = carriedChain(() => validateConversationInput(rawInput, { sizes: bounded }).resume?.chain);
  const ports = chainPorts({
    chain: () => chain,
    v2: true,
    team: { stranded: (refusal) => migrations.stranded(refusal) },
    tag: () => {
      const current = live ? session?.state.current : undefined;
      return current
        ? { turn: current.turn, message: current.idempotencyKey, ...(current.merged ? { merged: current.merged } : {}) }
        : undefined;
    },
    live,
    steeringRefusal: () =>
      !live
        ? 'it started before conversations took steering messages'
        : session?.state.current
          ? undefined
          : 'no message is being answered: send a message instead',
    desk: {
      bounded,
      signatures,
      inboxBounds,
      authority: inboxBounds && hasPatch(Patches.AUTHORITY),
      carried: startState,
    },
  });
  const { effects, steering, desk } = ports;
  const inbox = new Inbox(workflowInfo().workflowId);
  let badInput: UserError | false | undefined;
  setHandler(
    rawArgs(sendMessageUpdate),
    (m) => (noteUpdate(), inbox.receive(arrival(m, MESSAGE) as SendMessageInput)),
    {
      validator: (m) => {
        // A message that starts a conversation with bad input is refused with the input's problems, not left to a run that fails.
        badInput ??= inputRefusal(rawInput);
        if (badInput) throw toApplicationFailure(badInput);
        inbox.validate(arrival(m, MESSAGE));
      },
    },
  );
  setHandler(rawArgs(endConversationUpdate), () => (noteUpdate(), inbox.requestEnd()));
  setHandler(migrateConversationUpdate, () => (noteUpdate(), migrations.request()), {
    validator: () => migrations.validate(),
  });
  receiveDecisions(desk);
  receivePolicyUpdates({ chain: () => chain, effects });
  setHandler(
    conversationQuery,
    () =>
      session?.view() ?? {
        status: 'idle',
        activeAgent: startAgentOf(rawInput),
        turns: 0,
        queued: 0,
        pendingApprovals: [],
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, toolCalls: 0 },
        handoffs: 0,
        compactions: 0,
        runs: 1,
      },
  );
  setHandler(messageQuery, (find) => inbox.lookup(find));
  answerChainQueries({
    chain: () => chain,
    ports,
    rawInput,
    handoffs: () => (session?.state.handoffs ?? 0) + (session?.state.current ? (chain?.state.chain.length ?? 0) : 0),
  });

  let input: ConversationInput;
  let state: ConversationState;
  let upgrade = false;
  try {
    input = validateConversationInput(rawInput, { sizes: bounded });
    enterTenant(input.options?.tenant);
    if (!input.resume) effects.startRun(input.agent);
    if (input.resume)
      state = {
        ...input.resume,
        chain: { ...input.resume.chain, options: resolveRunOptions(input.resume.chain.options) },
      };
    else {
      const team = await effects.loadTeam();
      if (team.version && hasPatch(Patches.TEAM_VERSION)) recordTeam(effects, team);
      const here = runningVersion();
      state = {
        ...startConversation(team, input.agent, {
          run: resolveRunOptions(input.options),
          conversation: resolveConversationOptions(input.conversation),
          ...(input.context ? { context: input.context } : {}),
          now: effects.now(),
        }),
        ...(here ? { teamDeployment: here } : {}),
      };
    }
    const priced = economics ? economicsOf(state.chain, conversationBudget(state)) : undefined;
    if (priced) state = { ...state, chain: priced.state };
    chain = new Chain(state.chain);
    desk.attach(chain);
    if (live) inbox.midTurn = new MidTurn(workflowInfo().workflowId, state, effects, steering);
    inbox.attach(state);
    migrations.attach({ state, chain, inbox, effects, startAgent: input.agent });
    if (input.resume) desk.republish();
    const guards = defaultGuards({
      emptyOutputCheck: true,
      controls: true,
      economics,
      now: effects.now,
      scriptCheck: false,
      finalTurnEnds: () => hasPatch(Patches.FINAL_TURN_ENDS),
    });
    session = new Session(
      state,
      chain,
      inbox,
      effects,
      desk,
      guards,
      input.agent,
      live && inbox.midTurn ? { steering, midTurn: inbox.midTurn } : undefined,
      priced?.economy,
      migrations,
    );
    const outcome = await session.run();
    if (outcome.kind === 'ended') return outcome.result;
    upgrade = outcome.upgrade === true;
  } catch (err) {
    effects.setStatus(isCancellation(err) ? BatonStatus.CANCELLED : BatonStatus.FAILED);
    throw failureOf(err);
  }
  const carried = await session.handOver();
  const next: ConversationState = { ...carried, chain: carryOver(chain.state) };
  effects.setStatus(BatonStatus.CONTINUED_AS_NEW);
  const continueAsNew = makeContinueAsNewFunc<typeof conversation>({
    // The next run reads its input as this one did; this run writes it as plain JSON.
    typeInfo: {},
    typedSearchAttributes: nextRunAttributes(next.chain, next.handoffs + (next.current ? next.chain.chain.length : 0)),
    // Onto the deployment's current version, whose workers answer the next turn with their team.
    ...(upgrade ? { initialVersioningBehavior: 'AUTO_UPGRADE' as const } : {}),
  });
  return continueAsNew({
    agent: input.agent,
    ...(input.options ? { options: input.options } : {}),
    ...(input.conversation ? { conversation: input.conversation } : {}),
    ...(input.context ? { context: input.context } : {}),
    resume: next,
  });
}

// A defect must fail the run, not retry its workflow task forever.
setWorkflowOptions({ failureExceptionTypes: [Error] }, conversation);

/** Why the conversation's input is refused, or `false` when it is not. */
function inputRefusal(raw: unknown): UserError | false {
  try {
    validateConversationInput(raw);
    return false;
  } catch (err) {
    if (err instanceof InvalidRunInputError || err instanceof InputTooLargeError) return err;
    throw err;
  }
}

/** A message as sent, as large as the workflow reads: its text, its key, a little JSON around them. */
const MESSAGE = { field: 'sendMessage', bytes: LIMITS.messageBytes + 4 * LIMITS.idempotencyKeyChars + 64 };
