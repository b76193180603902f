/**
 * When the drill's dev server said it could not write a workflow's state: its log's
 * `store-operation=… error=…` lines (on SQLite under a burst of starts, `context canceled` and
 * `context deadline exceeded` while writes wait for the database). A workflow task that timed out
 * while the server was failing writes timed out in the server, whatever its worker did.
 */
import fs from 'node:fs';

const FAILED_STORE = /^time=(\S+) level=ERROR .*\bstore-operation=\S+ error=/;

/** When the server logged a failed store operation (ms since the epoch, ascending); none without a log. */
export function storeFailures(logFile: string | undefined): number[] {
  if (!logFile || !fs.existsSync(logFile)) return [];
  const at: number[] = [];
  for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
    // The server writes its local time without a zone, which Date reads as local time too.
    const time = FAILED_STORE.exec(line)?.[1];
    const ms = time === undefined ? NaN : new Date(time).getTime();
    if (!Number.isNaN(ms)) at.push(ms);
  }
  return at.sort((a, b) => a - b);
}

/** Whether the server failed a write between `from` and `to` (ms, inclusive). */
export function failedWritesBetween(failures: number[], from: number, to: number): boolean {
  let lo = 0;
  let hi = failures.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (failures[mid]! < from) lo = mid + 1;
    else hi = mid;
  }
  return lo < failures.length && failures[lo]! <= to;
}
