/**
 * Running a generated {@link FuzzScenario} on a real server and worker: its chains started together,
 * their approvals decided as the scenario says, and each chain checked against the invariants every
 * chain must keep whatever its model does (./fuzzInvariants.ts).
 *
 * No vitest here: the fuzzing drill (drill/fuzz.ts) uses it too.
 */
import { approveHandoffSignal, rejectHandoffSignal, type PendingApproval } from '../../src/workflow';
import { BatonError, type Baton } from '../../src';
import { clearBehaviour, setBehaviour } from './fuzzTeam';
import type { FuzzChain, FuzzDecision, FuzzScenario } from './fuzzScenario';
import { checkChain, type Ending } from './fuzzInvariants';

/** How one chain ended and which invariants it broke. */
export interface FuzzChainReport {
  workflowId: string;
  /** `completed`, the failure type, or `stuck`. */
  outcome: string;
  /** Handoffs that happened (of a failed chain too). */
  handoffs: number;
  approvalsDecided: number;
  violations: string[];
}

/** Options of {@link runScenario}. */
export interface RunScenarioOptions {
  baton: Baton;
  /** Workflow ids are `<prefix>-<index>`. */
  prefix: string;
  /** A chain still running this long after it started breaks the "ends" invariant. @default 60000 */
  deadlineMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Start the scenario's chains together, decide their approvals, and check each one. */
export async function runScenario(scenario: FuzzScenario, o: RunScenarioOptions): Promise<FuzzChainReport[]> {
  return Promise.all(scenario.chains.map((chain, i) => runChain(chain, `${o.prefix}-${i}`, o)));
}

async function runChain(chain: FuzzChain, workflowId: string, o: RunScenarioOptions): Promise<FuzzChainReport> {
  const { baton } = o;
  setBehaviour(workflowId, chain.models);
  try {
    try {
      await baton.start(chain.start, chain.input, { ...chain.options, workflowId });
    } catch (err) {
      return {
        workflowId,
        outcome: 'not started',
        handoffs: 0,
        approvalsDecided: 0,
        violations: [`start refused: ${String(err)}`],
      };
    }
    let ended = false;
    const decider = decideApprovals(baton, workflowId, chain.decisions, () => ended);
    const deadline = sleep(o.deadlineMs ?? 60_000).then((): Ending => ({ stuck: true }));
    const resulting = baton
      .getRun(workflowId)
      .result()
      .then(
        (result): Ending => ({ result }),
        (error: unknown): Ending => ({ error }),
      );
    const ending = await Promise.race([resulting, deadline]);
    ended = true;
    const decided = await decider;
    if ('stuck' in ending) {
      // No call of this chain outlives the run: the long poll for its result ends with the termination.
      await baton.client.workflow
        .getHandle(workflowId)
        .terminate('fuzz: past the deadline')
        .then(
          () => resulting,
          () => undefined,
        );
    }
    const checked = await checkChain(baton.client, baton, workflowId, chain, ending);
    return { workflowId, outcome: outcomeOf(ending), approvalsDecided: decided, ...checked };
  } finally {
    clearBehaviour(workflowId);
  }
}

function outcomeOf(ending: Ending): string {
  if ('stuck' in ending) return 'stuck';
  if ('result' in ending) return 'completed';
  const err = ending.error as Error;
  return err instanceof BatonError ? err.name : `untyped ${err?.name ?? typeof err}`;
}

/** Decide each approval the chain waits on with its next decision; answers how many were sent. */
async function decideApprovals(
  baton: Baton,
  workflowId: string,
  decisions: FuzzDecision[],
  ended: () => boolean,
): Promise<number> {
  const seen = new Set<string>();
  const sent: Promise<void>[] = [];
  const run = baton.getRun(workflowId);
  while (!ended()) {
    let waiting: PendingApproval[] = [];
    try {
      waiting = await run.pendingApprovals();
    } catch {
      // The run closed between two polls.
    }
    for (const p of waiting) {
      if (seen.has(p.handoffId)) continue;
      const d = decisions[seen.size % decisions.length]!;
      seen.add(p.handoffId);
      sent.push(sleep(d.delayMs).then(() => decide(baton, workflowId, p, d)));
    }
    await sleep(50);
  }
  await Promise.all(sent);
  return seen.size;
}

async function decide(baton: Baton, workflowId: string, p: PendingApproval, d: FuzzDecision): Promise<void> {
  const action = d.action === 'timeout' && !p.expiresAt ? 'approve' : d.action;
  const approve = () => send(baton, workflowId, p.handoffId, 'approve', d.via);
  // A decision may lose a race with the approval's timeout or the run's end: refusals are expected.
  switch (action) {
    case 'timeout':
      return;
    case 'approve':
      return approve();
    case 'reject':
      return send(baton, workflowId, p.handoffId, 'reject', d.via);
    case 'refused_first':
      await send(baton, workflowId, `not-${p.handoffId}`, 'approve', d.via);
      return approve();
    case 'twice':
      await approve();
      return send(baton, workflowId, p.handoffId, 'reject', d.via);
  }
}

async function send(
  baton: Baton,
  workflowId: string,
  handoffId: string,
  what: 'approve' | 'reject',
  via: FuzzDecision['via'],
): Promise<void> {
  try {
    if (via === 'update') {
      if (what === 'approve') await baton.approve(workflowId, handoffId, { approver: 'alice', comment: 'ok' });
      else await baton.reject(workflowId, handoffId, { approver: 'alice', reason: 'no' });
      return;
    }
    const handle = baton.client.workflow.getHandle(workflowId);
    if (what === 'approve') await handle.signal(approveHandoffSignal, { handoffId, approver: 'alice', comment: 'ok' });
    else await handle.signal(rejectHandoffSignal, { handoffId, approver: 'alice', reason: 'no' });
  } catch {
    // Refused (ApprovalRefusedError), or the run closed first.
  }
}

/**
 * A fast-check predicate running each generated scenario under fresh workflow ids
 * (`<prefix>-<n>-<chain>`) and throwing the broken invariants of every chain.
 */
export function fuzzRunner(
  baton: Baton,
  prefix: string,
  options: { deadlineMs?: number; onReport?: (reports: FuzzChainReport[]) => void } = {},
): (scenario: FuzzScenario) => Promise<void> {
  let n = 0;
  return async (scenario) => {
    const reports = await runScenario(scenario, { baton, prefix: `${prefix}-${n++}`, deadlineMs: options.deadlineMs });
    options.onReport?.(reports);
    const broken = reports.filter((r) => r.violations.length > 0);
    if (broken.length > 0)
      throw new Error(
        broken.map((r) => `${r.workflowId} (${r.outcome}):\n  - ${r.violations.join('\n  - ')}`).join('\n'),
      );
  };
}
