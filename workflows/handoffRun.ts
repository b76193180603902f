/**
 * The `handoffRun` workflow: wiring only. Handlers queue what arrives, the loop runs the chain,
 * and this function turns the outcome into a result, a typed failure or a continue-as-new.
 */
import {
  allHandlersFinished,
  condition,
  isCancellation,
  makeContinueAsNewFunc,
  setWorkflowOptions,
  workflowInfo,
} from '@temporalio/workflow';
import { hasPatch } from './patches';
import { arrival } from './arrivals';
import { receivePolicyUpdates } from './authority/policy';
import { answerChainQueries, chainPorts, failureOf, nextRunAttributes, receiveDecisions } from './wiring';
import { validateRunInput } from '../src/common/input';
import { Patches } from '../src/common/patches';
import { resolveRunOptions } from '../src/common/options';
import { BatonStatus, type HandoffRunInput, type HandoffRunResult } from '../src/common/run';
import type { ChainState } from '../src/common/state';
import type { ApprovalDesk } from './chain/desk';
import { initialControls } from './chain/controlState';
import { Chain, carryOver, startChain } from './chain/state';
import { defaultGuards } from './guards';
import { type ChainOutcome, runChain } from './loop';
import { enterChain } from './authority/entry';
import { carriedChain } from './chain/carried';
import { rebaseOnCurrentTeam } from './team/rebase';
import { withKeptPolicy } from './team/keptPolicy';
import { recordTeam } from './team/record';
import { type Economy } from './economics/economy';
import { economicsOf } from './economics/start';
import { chainTag } from './streams/tag';
import { enterTenant } from './tenant';

function asksForLocalCalls(input: unknown): boolean {
  const options = (input as { options?: { modelActivity?: unknown } } | null | undefined)?.options;
  return typeof options === 'object' && options !== null && options.modelActivity === 'local';
}

/**
 * One chain of handoffs: from `input.agent` with `input.input` until an agent answers.
 * Input and result are plain JSON, so any Temporal client can start it. Long chains continue as
 * new, carrying their state in `input.resume`.
 */
export async function handoffRun(startInput: HandoffRunInput): Promise<HandoffRunResult<unknown>> {
  // Read here, not by the SDK: a start that is not JSON fails the chain with InvalidRunInputError.
  const rawInput = arrival(startInput);
  // Decided once, before any handler runs, so the decision never depends on when a job arrives.
  const v2 = hasPatch(Patches.RUN_V2);
  const controls = v2 && hasPatch(Patches.CONTROLS);
  // Local activities run on the worker that runs the workflow: only a run that asked for local model
  // calls (and so runs its activities beside its workflows) loads the team snapshot locally.
  const localSnapshot = controls && asksForLocalCalls(rawInput) && hasPatch(Patches.LOCAL_SNAPSHOT);
  // What arrives from outside is held to LIMITS; specialists get tokens and decisions are forwarded to them.
  const bounded = controls && hasPatch(Patches.BOUNDS);
  // Decisions' signatures are verified, required where policies say so, and every approver's identity recorded.
  const signatures = bounded && hasPatch(Patches.SIGNATURES);
  // Costs, budgets in money, spend limits and shared breakers.
  const economics = bounded && hasPatch(Patches.ECONOMICS);
  // Refusals tallied per drain, and every wait continues as new before Temporal's limits.
  const inboxBounds = bounded && hasPatch(Patches.INBOX_BOUNDS);
  // What protects a chain is only tightened, unless an operator signs; gated agents are entered only with their approval.
  const authority = inboxBounds && hasPatch(Patches.AUTHORITY);
  let economy: Economy | undefined;
  let chain: Chain | undefined;
  let input: HandoffRunInput | undefined;
  // Model calls stream their text; steering and interrupts apply.
  const live = bounded && hasPatch(Patches.LIVE);
  // A decision that comes with the start is judged against the state the start carries.
  const carried = carriedChain(() => validateRunInput(rawInput, { sizes: bounded }).resume);
  const ports = chainPorts({
    chain: () => chain,
    v2,
    team: { parentTeam: () => input?.parent?.team, startTimeout: () => input?.options?.teamMismatchTimeout },
    tag: () => (live ? chainTag(workflowInfo().workflowId, input?.parent) : undefined),
    live,
    steeringRefusal: () =>
      !live ? 'it started before chains took steering messages' : chain ? undefined : 'it has not started yet',
    desk: { bounded, signatures, inboxBounds, authority, carried },
  });
  const { effects, steering, desk } = ports;
  receiveDecisions(desk);
  receivePolicyUpdates({ chain: () => chain, effects });
  answerChainQueries({ chain: () => chain, ports, rawInput, handoffs: () => chain?.state.chain.length ?? 0 });

  try {
    input = validateRunInput(rawInput, { sizes: bounded });
    enterTenant(input.options?.tenant);
    if (!input.resume) effects.startRun(input.agent);
    const started = controls ? { startedAt: effects.now() } : undefined;
    let state: ChainState;
    if (input.resume?.migrate) {
      // A migration (`baton replay --on-current-team`): the chain goes on with the current team.
      const current = await effects.loadTeam();
      // What policy updates tightened on the chain stays tightened on the current team.
      state = withKeptPolicy(rebaseOnCurrentTeam(resumed(input.resume, started), current), input.resume.team);
      recordTeam(effects, current, {
        from: input.resume.migrate.from,
        to: current.version?.id ?? '',
        beforeTurn: state.turns + 1,
        by: 'migration',
      });
      if (state.agentId !== input.resume.agentId) effects.setAgent(state.agentId, state.chain.length);
    } else if (input.resume) state = resumed(input.resume, started);
    else {
      const team = await effects.loadTeam(localSnapshot);
      if (team.version && hasPatch(Patches.TEAM_VERSION)) recordTeam(effects, team);
      state = {
        ...startChain(team, input.agent, input.input, resolveRunOptions(input.options), input.context, started),
        ...(input.parent ? { parent: input.parent } : {}),
      };
    }
    if (economics) ({ state, economy } = economicsOf(state));
    chain = new Chain(state);
    desk.attach(chain);
    if (input.resume) desk.republish();
    const guards = defaultGuards({
      emptyOutputCheck: v2,
      controls,
      economics,
      now: effects.now,
      finalTurnEnds: () => hasPatch(Patches.FINAL_TURN_ENDS),
    });
    const info = workflowInfo();
    const entry = authority
      ? await enterChain(
          { chain, effects, desk },
          {
            continued: info.continuedFromExecutionRunId !== undefined,
            child: info.parent !== undefined,
            input: input.input,
            resumed: input.resume !== undefined,
          },
        )
      : 'entered';
    const outcome: ChainOutcome =
      entry === 'paused'
        ? { kind: 'continue_as_new' }
        : await runChain({
            chain,
            effects,
            guards,
            desk,
            ...(economy ? { economy } : {}),
            ...(live ? { steering } : {}),
          });
    if (economy) await economy.flush();
    await desk.drain();
    if (outcome.kind === 'completed') {
      effects.setStatus(BatonStatus.COMPLETED);
      return outcome.result;
    }
  } catch (err) {
    if (economy) await economy.flush();
    if (chain) await desk.drain().catch(() => undefined);
    effects.setStatus(isCancellation(err) ? BatonStatus.CANCELLED : BatonStatus.FAILED);
    throw failureOf(err);
  }
  // Handlers answer at once, but let any that is running finish before handing over; decisions
  // that came since the last step are applied, so the next run carries them.
  if (inboxBounds) await handOver(desk);
  else await condition(allHandlersFinished);
  // Steering messages still waiting go with the chain into the next run.
  if (live) steering.apply({ chain, effects });
  const next = carryOver(chain.state);
  if (v2) effects.setStatus(BatonStatus.CONTINUED_AS_NEW);
  const continueAsNew = makeContinueAsNewFunc<typeof handoffRun>(
    v2
      ? {
          // The next run reads its input as this one did; this run writes it as plain JSON.
          typeInfo: {},
          typedSearchAttributes: nextRunAttributes(next, next.chain.length),
        }
      : { typeInfo: {} },
  );
  return continueAsNew({
    agent: input.agent,
    input: input.input,
    ...(input.options ? { options: input.options } : {}),
    ...(input.context ? { context: input.context } : {}),
    ...(input.parent ? { parent: input.parent } : {}),
    resume: next,
  });
}

// A defect must fail the run, not retry its workflow task forever; baton's own catch above turns
// errors into typed failures first, this is the second guard (handlers included).
setWorkflowOptions({ failureExceptionTypes: [Error] }, handoffRun);

/** Apply what arrived until no handler is still running: an update waiting for its decision's record gets it before the hand-over. */
async function handOver(desk: ApprovalDesk): Promise<void> {
  for (;;) {
    await desk.drain();
    if (allHandlersFinished()) return;
    await condition(() => allHandlersFinished() || desk.hasMail);
  }
}

/** A carried state, with defaults for options added since it was written, and the controls' state when this run has them. */
function resumed(state: ChainState, controls: { startedAt: number } | undefined): ChainState {
  return {
    ...state,
    options: resolveRunOptions(state.options),
    ...(controls && !state.controls ? { controls: initialControls(controls.startedAt) } : {}),
  };
}
