import type { BatonRun, RunResult } from '../client/baton';
import type { HandoffRecord, PendingApproval } from '../common/types';
import { formatHandoff, type Print } from './print';

/** What {@link follow} does besides printing handoffs. */
export interface FollowOptions {
  /** Called once for each handoff that starts waiting for approval. */
  onPending?: (run: BatonRun, pending: PendingApproval) => Promise<void>;
  /** @default 250 */
  pollMs?: number;
}

/** Print each handoff of `run` as it happens (and each approval it waits for), then return its result. */
export async function follow(run: BatonRun, print: Print, options: FollowOptions = {}): Promise<RunResult> {
  let seen = 0;
  const show = (chain: HandoffRecord[]) => {
    for (const h of chain.slice(seen)) print(formatHandoff(h));
    seen = Math.max(seen, chain.length);
  };
  const asked = new Set<string>();
  let done = false;
  const poller = (async () => {
    while (!done) {
      await new Promise((r) => setTimeout(r, options.pollMs ?? 250));
      if (done) break;
      show(await run.chain().catch(() => []));
      for (const p of await run.pendingApprovals().catch(() => [])) {
        if (asked.has(p.handoffId) || done) continue;
        asked.add(p.handoffId);
        await options.onPending?.(run, p).catch((err: Error) => print(`    could not decide: ${err.message}`));
      }
    }
  })();
  try {
    const result = await run.result();
    show(result.handoffChain);
    return result;
  } finally {
    done = true;
    await poller;
  }
}
