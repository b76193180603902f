/**
 * One sequence on the real system: begun on a task queue of its own (in a lane: plain workers or
 * a Worker Deployment), its steps run one by one — each followed by settling, observing and the
 * step invariants — then every chain and conversation driven to its end (the model answers, alice
 * approves, conversations are ended) and the end invariants checked. A broken invariant throws an
 * {@link InvariantError} with the steps that led to it.
 */
import type fc from 'fast-check';
import { checkInvariants } from './invariants';
import { knownDefect } from './known';
import { clip, errorText, sleep, type Harness, type HarnessOptions, type Step } from './harness';
import { newModel, openRoots, ref, type Lane, type ModelState, type RootModel } from './model';
import { observe } from './observe';
import { approve } from './operations/approvals';
import { waiting } from './waiting';
import { answer } from './operations/chain';
import { chatOf, inFlight } from './operations/conversation';
import { migrate, stranded } from './operations/migrate';
import { operationNamed } from './operations';
import type { ModelSystem } from './system';
import { historyOf } from '../../src/payloads/historyPages';

/** Broken invariants, with the sequence that broke them. */
export class InvariantError extends Error {
  constructor(
    readonly violations: string[],
    readonly lane: Lane,
    readonly steps: Step[],
  ) {
    super(
      `${violations.length} invariant(s) broken after ${steps.length} step(s):\n  - ${violations.join('\n  - ')}\nsteps: ${steps.map((s) => `${s.op} ${JSON.stringify(s.params)}`).join(' → ')}`,
    );
    this.name = 'InvariantError';
  }
}

/** Defaults of {@link HarnessOptions}. */
const DEFAULTS = { settleMs: 60_000, cliEvery: 6, strict: false };

/** Begin a sequence in `lane`, its workflow ids starting with `tag`. */
export async function begin(
  system: ModelSystem,
  lane: Lane,
  tag: string,
  options: HarnessOptions = {},
): Promise<Harness> {
  const taskQueue = await system.begin(lane, tag);
  return {
    system,
    model: newModel(tag, lane, taskQueue),
    baton: system.baton(taskQueue),
    options: { ...DEFAULTS, ...options },
    steps: [],
    violations: [],
    known: [],
    effectsRead: 0,
    effects: [],
  };
}

/** Settle the open roots, then observe them; a root still moving at the deadline is wedged. */
export async function settle(h: Harness): Promise<void> {
  const open = openRoots(h.model).map((r) => r.id);
  const still = await h.system.settle(open, h.options.settleMs);
  if (still.length > 0)
    h.violations.push(
      `[settles] still moving ${h.options.settleMs / 1000} s after the step: ${clip(still.join('; '), 600)}`,
    );
  await observe(h);
}

/** Throw the violations of the step, but those of known open defects (unless strict), which are kept. */
function fail(h: Harness): void {
  const violations = h.violations.splice(0);
  const unknown = violations.filter((v) => h.options.strict || !knownDefect(v));
  h.known.push(...violations.filter((v) => !unknown.includes(v)));
  if (unknown.length > 0) throw new InvariantError(unknown, h.model.lane, [...h.steps]);
}

/** Run one step (when its operation applies); answers whether it ran. */
export async function runStep(h: Harness, step: Step): Promise<boolean> {
  const op = operationNamed(step.op);
  if (!op.applies(h.model, step.params)) return false;
  h.steps.push(step);
  h.model.ran.set(op.name, (h.model.ran.get(op.name) ?? 0) + 1);
  h.options.log?.(`  ${h.model.tag} ${step.op} ${JSON.stringify(step.params)}`);
  try {
    await op.run(h, step.params);
  } catch (err) {
    h.violations.push(`[${op.name}] the operation failed: ${errorText(err)}`);
  }
  await settle(h);
  await checkInvariants(h, 'step');
  fail(h);
  return true;
}

/** The round of {@link finish} at which a side-by-side rollout completes, if anything is still open. */
const RETIRE_ROUND = 6;
/** How recent a refusal of a root's step counts as that root waiting for a worker of its team. */
const REFUSED_LATELY_MS = 120_000;

/** Drive every chain and conversation to its end, then check the end invariants. */
export async function finish(h: Harness): Promise<void> {
  const m = h.model;
  const t0 = Date.now();
  let rounds = 0;
  for (let round = 0; round < 40; round++, rounds++) {
    await settle(h);
    await checkInvariants(h, 'step');
    fail(h);
    const open = openRoots(m);
    if (open.length === 0) break;
    let acted = false;
    if (round === RETIRE_ROUND && (await completeRollout(h, open))) acted = true;
    for (const call of m.calls) {
      answer(h, call, { text: `final answer [${ref(m, 'a')}]` });
      acted = true;
    }
    for (const w of waiting(m)) {
      await approve(h, w);
      acted = true;
    }
    // A conversation whose callers were told its turn is stranded is moved onto the current team, as its operator would.
    for (const r of stranded(m)) {
      migrate(h, r, false);
      acted = true;
    }
    for (const r of open.filter(
      (x) =>
        x.kind === 'conversation' && !x.ending && !x.migrating && inFlight(x).length === 0 && !stranded(m).includes(x),
    )) {
      r.ending = chatOf(h, r)
        .end()
        .then(
          () => undefined,
          (err: unknown) => void (r.endError = errorText(err)),
        );
      acted = true;
    }
    if (!acted) await sleep(500);
  }
  await Promise.race([
    Promise.all(m.roots.flatMap((r) => [r.migrating, ...r.messages.map((x) => x.done), r.ending ?? Promise.resolve()])),
    sleep(30_000),
  ]);
  await settle(h);
  for (const r of m.roots) {
    const why = r.status === 'open' ? await lastFailures(h, r.id) : '';
    if (r.status === 'open')
      h.violations.push(
        `[ends-documented] ${r.kind} ${r.id} did not end after the harness answered, approved and ended everything (${r.approvals.length} approvals, ${m.calls.filter((c) => c.workflowId.startsWith(r.id)).length} calls waiting${why})`,
      );
    for (const x of r.messages)
      if (!x.reply && !x.error)
        h.violations.push(`[messages-answered] ${r.id}: message ${x.n} (${x.midTurn}) never came back${why}`);
  }
  for (const r of m.roots) if (r.endError) h.violations.push(`[ends-documented] ending ${r.id} failed: ${r.endError}`);
  fail(h);
  // What a known open defect left running is set aside: the end invariants judge what ended.
  for (const r of openRoots(m)) {
    r.abandoned = true;
    r.follower?.stop();
    await h.system.client.workflow
      .getHandle(r.id)
      .terminate('model harness: a known defect left it running')
      .catch(() => undefined);
  }
  const t1 = Date.now();
  await checkInvariants(h, 'end');
  h.options.log?.(
    `  ${m.tag} driven to its end in ${rounds} rounds, ${((t1 - t0) / 1000).toFixed(1)} s; end invariants ${((Date.now() - t1) / 1000).toFixed(1)} s`,
  );
  fail(h);
}

/**
 * Side by side on one queue, the v1 workers may take a v2 root's steps try after try (and refuse
 * them): what is still open then waits for a worker of v2, as in production until the operator
 * completes the rollout. The harness completes it, v1's workers retired, when an open root's steps
 * are being refused or its turn is stranded; the roots begun on v1 were told they may fail.
 */
async function completeRollout(h: Harness, open: RootModel[]): Promise<boolean> {
  const m = h.model;
  if (m.deployed !== 'side_by_side') return false;
  const strandedNow = stranded(m);
  const waiting = (r: RootModel) => strandedNow.includes(r) || h.system.hosts.refusedWithin(r.id, REFUSED_LATELY_MS);
  if (!open.some(waiting)) return false;
  await h.system.retireV1(m.lane);
  m.deployed = 'v1_gone';
  h.options.log?.(`  ${m.tag}: v1's workers retired, ${open.length} root(s) open`);
  return true;
}

/** What a chain that does not end (and the specialists it waits for) last failed with, from history: `; waits in …`. */
async function lastFailures(h: Harness, workflowId: string): Promise<string> {
  try {
    const d = await h.system.client.workflow.getHandle(workflowId).describe();
    if (d.status.name !== 'RUNNING') return '';
    const events = (await historyOf(h.system.client, workflowId)).events ?? [];
    const failure = events
      .map((e) => e.activityTaskFailedEventAttributes?.failure)
      .filter((f) => f)
      .at(-1);
    const own = failure
      ? `; ${workflowId} last failed a step with ${failure.applicationFailureInfo?.type ?? 'a failure'}: ${clip(failure.message, 200)}`
      : '';
    const children = await Promise.all((d.raw.pendingChildren ?? []).map((c) => lastFailures(h, c.workflowId ?? '')));
    return own + children.join('');
  } catch {
    return '';
  }
}

/** Leave nothing running: stop followers, terminate what is still open, wait for the workers. */
export async function cleanup(h: Harness): Promise<void> {
  for (const r of h.model.roots) {
    r.follower?.stop();
    if (r.status === 'open')
      await h.system.client.workflow
        .getHandle(r.id)
        .terminate('model harness: sequence over')
        .catch(() => undefined);
  }
  for (const c of h.system.hosts.calls())
    if (c.workflowId.startsWith(h.model.tag)) h.system.hosts.answer(c.key, { text: 'gone' });
  // What the client still has under way (followers, messages, ends) settles before the next sequence or the end.
  const pending = h.model.roots.flatMap((r) => [
    r.follower?.done,
    r.ending,
    r.migrating,
    ...r.messages.map((x) => x.done),
  ]);
  await Promise.race([Promise.all(pending), sleep(15_000)]);
  await h.system.hosts.untilAllUp().catch(() => undefined);
}

/** Run a saved sequence (a regression case) start to end; throws an {@link InvariantError} when an invariant breaks. */
export async function runSequence(
  system: ModelSystem,
  lane: Lane,
  steps: Step[],
  tag: string,
  options: HarnessOptions = {},
): Promise<Harness> {
  const h = await begin(system, lane, tag, options);
  try {
    for (const step of steps) await runStep(h, step);
    await finish(h);
    return h;
  } finally {
    await cleanup(h);
  }
}

/** A fast-check command of one step. */
export class StepCommand implements fc.AsyncCommand<ModelState, Harness> {
  constructor(readonly step: Step) {}
  check(m: Readonly<ModelState>): boolean {
    return operationNamed(this.step.op).applies(m as ModelState, this.step.params);
  }
  async run(_m: ModelState, h: Harness): Promise<void> {
    await runStep(h, this.step);
  }
  toString(): string {
    return `${this.step.op} ${JSON.stringify(this.step.params)}`;
  }
}
