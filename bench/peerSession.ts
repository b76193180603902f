/**
 * A peer's measuring program kept running beside baton (`--serve`), so its chains can take turns
 * with baton's and the floor's in the same interleaved rounds (bench/interleaved.ts): it warms up,
 * says it is ready in one JSON line, then for each line `N` on its stdin runs N chains one after
 * the other and answers one JSON line with each chain's milliseconds. Closing its stdin ends it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { installPeer } from './lib';

/** A running peer: `chains(n)` runs n chains and resolves to each one's milliseconds, as the peer timed them. */
export interface PeerSession {
  name: string;
  /** What the peer said when it was ready (its versions and settings). */
  ready: Record<string, unknown>;
  chains(n: number): Promise<number[]>;
  close(): Promise<void>;
}

/** Starts `bench/peers/<name>/main.ts --serve ...args`; why it could not, when it could not. */
export async function openPeerSession(name: string, args: string[]): Promise<PeerSession | { skipped: string }> {
  const installed = await installPeer(name);
  if (installed) return installed;
  const dir = path.join(__dirname, 'peers', name);
  const main = path.join(dir, 'main.ts');
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), main, '--serve', ...args], {
    cwd: dir,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const by = `run it alone with \`npx tsx ${path.relative(process.cwd(), main)} --serve ${args.join(' ')}\``;
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await lines.next();
    if (line.done)
      throw new Error(
        `the ${name} peer ended before it answered (${child.signalCode ?? `exit ${child.exitCode}`}); ${by}`,
      );
    try {
      return JSON.parse(line.value) as Record<string, unknown>;
    } catch {
      throw new Error(`the ${name} peer answered a line that is not JSON: ${line.value.slice(0, 200)}; ${by}`);
    }
  };
  let ready: Record<string, unknown>;
  try {
    ready = await next();
  } catch (err) {
    child.kill();
    return { skipped: err instanceof Error ? err.message : String(err) };
  }
  return {
    name,
    ready,
    async chains(n) {
      child.stdin!.write(`${n}\n`);
      const answer = await next();
      return answer.chainMs as number[];
    },
    close: () => ended(child),
  };
}

/** Closes the peer's stdin and waits for it to exit; one that has not exited 10 s later is killed. */
function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('close', () => {
      clearTimeout(kill);
      resolve();
    });
    child.stdin!.end();
  });
}
