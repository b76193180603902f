import type { BatonRun, RunResult } from '../client/baton';
import type { HandoffRecord } from '../common/types';

/** Print each handoff of `run` as it happens, then return its result. */
export async function follow(run: BatonRun, print: (line: string) => void, pollMs = 250): Promise<RunResult> {
  let seen = 0;
  const show = (chain: HandoffRecord[]) => {
    for (const h of chain.slice(seen)) print(formatHandoff(h));
    seen = Math.max(seen, chain.length);
  };
  let done = false;
  const poller = (async () => {
    while (!done) {
      await new Promise((r) => setTimeout(r, pollMs));
      if (!done) show(await run.chain().catch(() => []));
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

export function formatHandoff(h: HandoffRecord): string {
  const message = h.message.length > 100 ? `${h.message.slice(0, 97)}...` : h.message;
  return `  ↪ ${h.from} → ${h.to}: ${message}`;
}

/** The chain as one line: `triage → refunds → sales`. */
export function chainPath(start: string, chain: HandoffRecord[]): string {
  return [start, ...chain.map((h) => h.to)].join(' → ');
}
