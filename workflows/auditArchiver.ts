/**
 * The `auditArchiver` workflow: one per archive (a fixed workflow id), running as long as the
 * archive worker serves it. It lists the chains and conversations closed since its cursor (every
 * way a chain closes: completed, failed, cancelled, terminated, timed out), has each archived by an
 * activity on the archive's task queue, and advances the cursor only after that activity
 * completed: a chain is never skipped, and one whose archiving was cut short is archived again (to
 * the same object). After an outage it drains the backlog from where it stopped. It continues as
 * new as its history grows, carrying the cursor. It is off every chain's path: a chain never waits
 * for it, and nothing it does fails a chain.
 */
import { condition, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  advanceCursor,
  type ArchiveActivities,
  type ArchiverInput,
  type ArchiverStatus,
  archiverStatusQuery,
  archiveNowSignal,
  ARCHIVER_WORKFLOW_TYPE,
  initialCursor,
} from '../src/common/archive';
import { Patches } from '../src/common/patches';
import { handOver, handOverDue } from './economics/handover';
import { hasPatch } from './patches';

/** Chains a run archives before it continues as new (besides whenever Temporal suggests it). */
const CHAINS_PER_RUN = 500;
/** Events a run's history holds before it continues as new (see `ArchiverInput.eventsPerRun`). */
const EVENTS_PER_RUN = 1_000;

export async function auditArchiver(input: ArchiverInput): Promise<never> {
  // Retried without end, backing off to a minute: an archive down for hours is a backlog, not a loss.
  const { listClosedChains, archiveClosedChain } = proxyActivities<ArchiveActivities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: input.heartbeatTimeoutMs ?? 20_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  const status: ArchiverStatus = {
    cursor: input.cursor ?? initialCursor(input.since),
    totals: input.totals ?? { archived: 0, alreadyArchived: 0, lost: 0, erased: 0, streamed: 0 },
    runs: input.runs ?? 0,
  };
  let woken = false;
  setHandler(archiverStatusQuery, () => status);
  setHandler(archiveNowSignal, () => void (woken = true));
  // Runs from before the patch continued as new by chains and Temporal's suggestion only.
  const eventsPerRun = hasPatch(Patches.ARCHIVER_HISTORY) ? (input.eventsPerRun ?? EVENTS_PER_RUN) : Infinity;
  let taken = 0;
  for (;;) {
    woken = false;
    const batch = input.batch ?? 50;
    const closed = await listClosedChains({
      cursor: status.cursor,
      ...(input.chainsOn !== undefined ? { chainsOn: input.chainsOn } : {}),
      settleMs: input.settleMs ?? 10_000,
      limit: batch,
    });
    for (const c of closed) {
      const done = await archiveClosedChain(c);
      status.cursor = advanceCursor(status.cursor, c);
      status.last = { ...c, ...done };
      const t = status.totals;
      if (done.outcome === 'written') t.archived++;
      else if (done.outcome === 'exists') t.alreadyArchived++;
      else if (done.outcome === 'lost') t.lost++;
      else t.erased++;
      t.streamed += done.streamed;
      taken++;
    }
    if (handOverDue(taken, CHAINS_PER_RUN) || workflowInfo().historyLength >= eventsPerRun) break;
    if (closed.length < batch) await condition(() => woken, input.pollMs ?? 30_000);
  }
  return handOver<typeof auditArchiver>(ARCHIVER_WORKFLOW_TYPE, {
    ...input,
    cursor: status.cursor,
    totals: status.totals,
    runs: status.runs + 1,
  });
}
