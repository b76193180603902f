/**
 * Starting the drill's chains, deciding their approvals as a person would (after a while, by
 * signal, so a decision needs no live worker), and collecting how each one ended.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { BatonError, type Baton } from '../src';
import { approveHandoffSignal, rejectHandoffSignal, type HandoffRunResult } from '../src/workflow';
import { drillChain, type DrillChain } from './team';

/** How one chain ended. */
export interface ChainOutcome {
  index: number;
  workflowId: string;
  kind: string;
  /** The result with everything that varies between runs (times, ids) left out. */
  result?: string;
  /** The failure type of a failed chain. */
  error?: string;
  /** Still running at the deadline. */
  stuck: boolean;
  completedAt?: number;
}

/** Options of {@link runChains}. */
export interface RunChainsOptions {
  baton: Baton;
  /** Workflow ids are `<prefix>-<index>`. */
  prefix: string;
  count: number;
  /** Start the chains spread over this long. */
  staggerMs: number;
  /** A decision is sent this long (uniformly at random) after the drill sees the approval waiting. */
  approvalDelayMs: [number, number];
  /** Give up on chains still running this long after the last start. */
  deadlineMs: number;
  random: () => number;
  /** Extra run options for every chain, e.g. `heartbeatTimeout`. */
  runOptions?: DrillChain['options'];
  /** While this answers true, no decision is sent (the server is down). */
  holdDecisions?: () => boolean;
  /** Called once per chain when the drill first sees it waiting for approval. */
  onWaiting?: (workflowId: string) => void;
}

/** What a chain's result must equal across runs: agent, answer, handoffs with their approval, usage. */
export function canonicalResult(r: HandoffRunResult): string {
  return JSON.stringify({
    finalAgent: r.finalAgent,
    output: r.output,
    handoffs: r.handoffChain.map((h) => ({
      from: h.from,
      to: h.to,
      message: h.message,
      turn: h.turn,
      approval: h.approval && { outcome: h.approval.outcome, approver: h.approval.approver },
    })),
    usage: r.usage,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Start `count` chains, decide their approvals, and wait for each to end or the deadline. */
export async function runChains(o: RunChainsOptions): Promise<ChainOutcome[]> {
  const ids = Array.from({ length: o.count }, (_, i) => `${o.prefix}-${i}`);
  const byId = new Map(ids.map((id, i) => [id, drillChain(i)]));
  let settled = false;
  const approvals = decideApprovals(o, byId, () => settled);
  const outcomes: Promise<ChainOutcome>[] = [];
  let lastStart = Date.now();
  for (const [i, id] of ids.entries()) {
    const chain = byId.get(id)!;
    await startWithRetry(o, id, chain);
    lastStart = Date.now();
    outcomes.push(outcomeOf(o, i, id, chain, () => lastStart + o.deadlineMs));
    if (i < ids.length - 1) await sleep(o.staggerMs / o.count);
  }
  const all = await Promise.all(outcomes);
  settled = true;
  await approvals;
  return all;
}

async function startWithRetry(o: RunChainsOptions, id: string, chain: DrillChain): Promise<void> {
  for (let tries = 0; ; tries++) {
    try {
      await o.baton.start('intake', chain.input, { ...chain.options, ...o.runOptions, workflowId: id });
      return;
    } catch (err) {
      // The server may be down for the server drill; a chain that did start answers "already started".
      if ((err as Error).name === 'WorkflowExecutionAlreadyStartedError') return;
      if (tries > 120) throw err;
      await sleep(1000);
    }
  }
}

async function outcomeOf(
  o: RunChainsOptions,
  index: number,
  workflowId: string,
  chain: DrillChain,
  deadline: () => number,
): Promise<ChainOutcome> {
  const base = { index, workflowId, kind: chain.kind };
  while (Date.now() < deadline()) {
    try {
      const result = await Promise.race([
        o.baton.getRun(workflowId).result(),
        sleep(Math.max(0, deadline() - Date.now())).then(() => undefined),
      ]);
      if (!result) break;
      return { ...base, result: canonicalResult(result), stuck: false, completedAt: Date.now() };
    } catch (err) {
      const failure = failureType(err);
      if (failure) return { ...base, error: failure, stuck: false, completedAt: Date.now() };
      // Anything else is the connection (the server drill restarts the server): ask again.
      await sleep(1000);
    }
  }
  return { ...base, stuck: true };
}

/** The failure type of a chain that failed (a baton error or any failed workflow), else undefined. */
function failureType(err: unknown): string | undefined {
  if (err instanceof BatonError) return err.name;
  if (err instanceof WorkflowFailedError)
    return (err.cause as { type?: string } | undefined)?.type ?? err.cause?.name ?? 'WorkflowFailedError';
  return undefined;
}

async function decideApprovals(
  o: RunChainsOptions,
  chains: Map<string, DrillChain>,
  done: () => boolean,
): Promise<void> {
  const seen = new Map<string, number>();
  const decided = new Set<string>();
  while (!done()) {
    await sleep(300);
    if (o.holdDecisions?.()) continue;
    let waiting;
    try {
      waiting = await o.baton.pending();
    } catch {
      continue;
    }
    for (const p of waiting) {
      const chain = chains.get(p.workflowId);
      const key = `${p.workflowId}/${p.handoffId}`;
      if (!chain || decided.has(key)) continue;
      if (!seen.has(key)) {
        const [min, max] = o.approvalDelayMs;
        seen.set(key, Date.now() + min + o.random() * (max - min));
        o.onWaiting?.(p.workflowId);
      }
      if (chain.decision === 'none' || Date.now() < seen.get(key)! || o.holdDecisions?.()) continue;
      try {
        const handle = o.baton.client.workflow.getHandle(p.workflowId);
        if (chain.decision === 'approve')
          await handle.signal(approveHandoffSignal, {
            handoffId: p.handoffId,
            approver: 'drill',
            comment: 'looks right',
          });
        else
          await handle.signal(rejectHandoffSignal, {
            handoffId: p.handoffId,
            approver: 'drill',
            reason: 'not eligible',
          });
        decided.add(key);
      } catch {
        // Sent again on the next round (the server was unreachable).
      }
    }
  }
}
