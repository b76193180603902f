/**
 * Steps run only on workers that have the chain's team. Every activity a step schedules carries
 * what it needs of the team (`TeamNeed`, from the run's snapshot); a worker that lacks it refuses
 * with `TeamMismatchError`. Such a step is scheduled again after a pause (any worker may take it)
 * until the run's `teamMismatchTimeout` has passed since its first refusal; then the chain fails
 * with the error, which names the version and what is missing. A conversation's turn is told of each
 * refusal and may wait on instead, for a worker of its team or a migration (`stranded`). A refusal
 * is never an answer to the model and never a tool's failure.
 */
import { ApplicationFailure } from '@temporalio/common';
import { durationMs } from '../../src/common/check';
import { TeamMismatchError } from '../../src/common/errors';
import { RUN_OPTIONS } from '../../src/common/options';
import { Patches } from '../../src/common/patches';
import type { ChainState } from '../../src/common/state';
import type { TeamSpec } from '../../src/common/team';
import type { TeamNeed } from '../../src/common/version';
import { type ChainEffects, type DelegationOutcome, type DelegationStart, started } from '../chain/effects';
import { hasPatch } from '../patches';
import { guardrailNeed, modelNeed, needOf, onHandoffNeed, remoteNeed, toolNeed } from './needs';

/**
 * Pauses before a refused step is scheduled again: the first {@link QUICK_TRIES} short, then doubling
 * from {@link FIRST_PAUSE_MS} up to {@link MAX_PAUSE_MS}. Temporal hands a task to the poller that
 * came last, and the worker that refused polls again at once, so the quick tries often return to it;
 * the longer pauses reach other workers as their long polls renew (docs/operating.md).
 */
const QUICK_TRIES = 8;
const QUICK_PAUSE_MS = 200;
const FIRST_PAUSE_MS = 500;
const MAX_PAUSE_MS = 15_000;
/** The pause of a step that waits past `teamMismatchTimeout` (a stranded turn): its history grows slowly. */
const STRANDED_PAUSE_MS = 60_000;

/** A refusal as the step's caller hears of it. */
export type TeamRefusal = ConstructorParameters<typeof TeamMismatchError>[0];

/** The pause after refusal number `n` (0-based). */
function pauseAfter(n: number): number {
  return n < QUICK_TRIES ? QUICK_PAUSE_MS : Math.min(FIRST_PAUSE_MS * 2 ** (n - QUICK_TRIES), MAX_PAUSE_MS);
}

/** Where the decorator reads the chain it works for. */
export interface TeamSource {
  /** The chain's state, once it exists. */
  state(): ChainState | undefined;
  /** For a specialist's first step: the team of the chain that delegated to it. */
  parentTeam?(): { id: string; hash: string } | undefined;
  /** The `teamMismatchTimeout` the run was started with: what a specialist's first step waits, before the chain has a state. */
  startTimeout?(): string | number | undefined;
  /**
   * Told of each refusal of a step, and (`undefined`) when a refused step was taken at last; answers
   * whether the step waits on past `teamMismatchTimeout` rather than failing (a conversation's turn).
   */
  stranded?(refusal: TeamRefusal | undefined): boolean;
}

/** `effects` whose activities carry their team needs and wait, bounded, for a worker that has them. */
export function matchingTeam(effects: ChainEffects, source: TeamSource): ChainEffects {
  const team = (): TeamSpec | undefined => source.state()?.team;
  const withNeed = <I extends { team?: TeamNeed }>(input: I, need: (t: TeamSpec) => TeamNeed, refused: number): I => {
    const t = team();
    return t ? { ...input, team: { ...need(t), ...(refused > 0 ? { refused } : {}) } } : input;
  };
  const untilMatched = <T>(step: (refused: number) => Promise<T>): Promise<T> => whileRefused(effects, source, step);
  return Object.assign(Object.create(effects) as ChainEffects, {
    loadTeam(local?: boolean) {
      const parent = source.parentTeam?.();
      return untilMatched((refused) => {
        if (parent)
          return effects.loadTeam(local, {
            version: parent.id,
            hash: parent.hash,
            ...(refused > 0 ? { refused } : {}),
          });
        // A worker whose team is older than the newest registered refused the new chain: the snapshot is asked of the queue, not of it (locally or eagerly).
        const away = refused > 0 && hasPatch(Patches.STALE_WORKERS);
        return effects.loadTeam(away ? false : local, away ? { version: '', refused } : undefined);
      });
    },
    callModel: (input, options, local) =>
      untilMatched((n) =>
        effects.callModel(
          withNeed(input, (t) => modelNeed(t, input.agentId, input.model.provider), n),
          options,
          local,
        ),
      ),
    summarize: (input, options) =>
      untilMatched((n) =>
        effects.summarize(
          withNeed(input, (t) => needOf(t, [], input.model.provider), n),
          options,
        ),
      ),
    routeSpecialist: (input, options) =>
      untilMatched((n) =>
        effects.routeSpecialist(
          withNeed(input, (t) => needOf(t, [], input.model.provider), n),
          options,
        ),
      ),
    checkHandoff: (input, options) =>
      untilMatched((n) =>
        effects.checkHandoff(
          withNeed(input, (t) => onHandoffNeed(t, input.from, input.to), n),
          options,
        ),
      ),
    runTool: (input, options) =>
      untilMatched((n) =>
        effects.runTool(
          withNeed(input, (t) => toolNeed(t, input.agentId, input.call.name), n),
          options,
        ),
      ),
    checkGuardrail: (input, options) =>
      untilMatched((n) =>
        effects.checkGuardrail(
          withNeed(input, (t) => guardrailNeed(t, input.agentId, input.stage, input.guardrail), n),
          options,
        ),
      ),
    ...(effects.callRemoteAgent
      ? {
          callRemoteAgent: (input, options, timeoutMs) =>
            untilMatched((n) =>
              effects.callRemoteAgent!(
                withNeed(input, (t) => remoteNeed(t, input.from, input.remote), n),
                options,
                timeoutMs,
              ),
            ),
        }
      : {}),
    delegate: (start) => delegateWhileStranded(effects, source, start),
  } satisfies Partial<ChainEffects>);
}

/**
 * Run `step` until a worker that has the team takes it: after each refusal, pause ({@link pauseAfter})
 * and schedule it again, until the run's `teamMismatchTimeout` has passed since the first refusal
 * (or, for a step whose source waits on, until a worker takes it or the wait is cancelled). A promise
 * chain rather than an async loop: the SDK captures a stack for every promise workflow code makes.
 */
function whileRefused<T>(
  effects: ChainEffects,
  source: TeamSource,
  step: (refused: number) => Promise<T>,
  refused = 0,
  first?: number,
): Promise<T> {
  return started(() => step(refused)).then(
    (taken) => {
      if (refused > 0) source.stranded?.(undefined);
      return taken;
    },
    async (err: unknown) => {
      const details = refusal(err);
      if (!details) throw err;
      const now = effects.now();
      const since = first ?? now;
      const limit = durationMs(timeoutOf(source)) ?? 600_000;
      const left = since + limit - now;
      // A refusal or a few in a row are routine while a deploy rolls (a worker of the team takes one
      // of the next quick tries): a turn is stranded once its step is still refused after them.
      const routine =
        refused + 1 < QUICK_TRIES &&
        left > 0 &&
        source.stranded !== undefined &&
        hasPatch(Patches.STRANDED_AFTER_QUICK_TRIES);
      const waits = !routine && source.stranded?.(mismatchDetails(details)) === true;
      if (left <= 0 && !waits) throw new TeamMismatchError({ ...mismatchDetails(details), waitedMs: now - since });
      const timer = effects.timer(left > 0 ? Math.min(pauseAfter(refused), left) : STRANDED_PAUSE_MS);
      await effects.condition(() => timer.fired);
      return whileRefused(effects, source, step, refused + 1, since);
    },
  );
}

/**
 * Delegate; a specialist stranded on a team no worker has strands its caller too: not the model's
 * to handle. A chain fails with the refusal; a conversation's turn is stranded by it (its callers
 * told, the refusal on the record) and delegates again after a pause, until a worker of its team
 * takes the specialist or a migration moves the turn.
 */
async function delegateWhileStranded(
  effects: ChainEffects,
  source: TeamSource,
  start: DelegationStart,
): Promise<DelegationOutcome> {
  for (let refused = 0; ; refused++) {
    const outcome = await effects.delegate(start);
    if (outcome.ok || !outcome.mismatch) {
      if (refused > 0) source.stranded?.(undefined);
      return outcome;
    }
    const details = mismatchDetails(outcome.mismatch, `delegation to ${start.input.agent} (${start.workflowId})`);
    if (!source.stranded || !hasPatch(Patches.STRANDED_DELEGATIONS) || !source.stranded(details))
      throw new TeamMismatchError(details);
    const timer = effects.timer(STRANDED_PAUSE_MS);
    await effects.condition(() => timer.fired);
  }
}

/** The run's `teamMismatchTimeout`: from its state, or (a specialist's first step, before it has one) from its start. */
function timeoutOf(source: TeamSource): string | number {
  const own = source.state()?.options.teamMismatchTimeout;
  if (own !== undefined) return own;
  const given = source.startTimeout?.();
  return given !== undefined && hasPatch(Patches.SPECIALIST_TEAM_TIMEOUT)
    ? given
    : RUN_OPTIONS.teamMismatchTimeout.default;
}

/** The details of a `TeamMismatchError` refusal, or `undefined` for any other error. */
function refusal(err: unknown): Record<string, unknown> | undefined {
  if (err instanceof TeamMismatchError) return { ...err.details };
  if (err instanceof ApplicationFailure && err.type === TeamMismatchError.name)
    return (err.details?.[0] as Record<string, unknown> | undefined) ?? {};
  return undefined;
}

function mismatchDetails(d: Record<string, unknown>, via?: string): TeamRefusal {
  const step = typeof d.step === 'string' ? d.step : 'a step';
  return {
    version: typeof d.version === 'string' ? d.version : '(unknown)',
    worker: typeof d.worker === 'string' ? d.worker : '(unknown)',
    step: via ? `${via}: ${step}` : step,
    missing: Array.isArray(d.missing) ? d.missing.map(String) : [],
    ...(typeof d.waitedMs === 'number' ? { waitedMs: d.waitedMs } : {}),
  };
}
