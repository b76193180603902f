/**
 * Measures the benchmark chain as a LangGraph swarm in-process, checkpointed in memory
 * (MemorySaver) or, with `--saver sqlite`, durably in a SQLite database file (SqliteSaver): what a
 * user who wants durability without a server picks. bench/run.ts runs it as a child process beside baton:
 *
 *   npx tsx bench/peers/langgraph/main.ts --reps 3 [--saver sqlite]
 *
 * The one line on stdout is the JSON report (raw milliseconds, see {@link Report}). With `--serve`
 * it takes turns with baton's chains instead (bench/peerSession.ts): after its warm-up it prints a
 * JSON line with its versions, then for each line `N` on stdin runs N chains and prints
 * `{"chainMs": [...]}`, until stdin closes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { type BaseCheckpointSaver, MemorySaver } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { timeRuns } from '../timing';
import { chainSwarm } from './swarm';

/** The JSON line this program prints. */
export interface Report {
  peer: 'langgraph';
  /** Where checkpoints go: memory, or a SQLite database file. */
  saver: 'memory' | 'sqlite';
  versions: Record<string, string>;
  handoffs: number;
  /** Sequential chains of `handoffs` handoffs, after two warm-up chains: ms each. */
  chainMs: number[];
  /** Checkpoints the saver holds for one chain's thread (the swarm's and its agents'). */
  checkpoints: number;
}

const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '7' },
    handoffs: { type: 'string', default: '10' },
    latency: { type: 'string', default: '0' },
    saver: { type: 'string', default: 'memory' },
    serve: { type: 'boolean', default: false },
  },
});
const handoffs = Number(values.handoffs);

function versionOf(name: string): string {
  return (
    JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
}

async function main(): Promise<void> {
  const saver = values.saver === 'sqlite' ? 'sqlite' : 'memory';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-langgraph-'));
  const checkpointer: BaseCheckpointSaver =
    saver === 'sqlite' ? SqliteSaver.fromConnString(path.join(dir, 'checkpoints.db')) : new MemorySaver();
  const app = chainSwarm(handoffs, Number(values.latency), checkpointer);
  let thread = 0;
  const chain = async () => {
    const config = { configurable: { thread_id: `chain-${++thread}` }, recursionLimit: 4 * handoffs + 10 };
    const state = await app.invoke({ messages: [{ role: 'user', content: 'go' }] }, config);
    const last = state.messages.at(-1);
    if (last?.content !== 'done' || state.activeAgent !== `c${handoffs}`)
      throw new Error(`the swarm ended at ${state.activeAgent} with ${JSON.stringify(last?.content)}`);
    return config;
  };
  const versions = Object.fromEntries(
    [
      '@langchain/langgraph',
      '@langchain/langgraph-swarm',
      '@langchain/core',
      ...(saver === 'sqlite' ? ['@langchain/langgraph-checkpoint-sqlite', 'better-sqlite3'] : []),
    ].map((n) => [n, versionOf(n)]),
  );
  if (values.serve) {
    await timeRuns(0, chain, 2);
    process.stdout.write(`${JSON.stringify({ peer: 'langgraph', saver, versions, handoffs })}\n`);
    for await (const line of readline.createInterface({ input: process.stdin }))
      process.stdout.write(`${JSON.stringify({ chainMs: await timeRuns(Number(line), chain, 0) })}\n`);
    fs.rmSync(dir, { recursive: true, force: true });
    return;
  }
  // Two warm-up chains, as for the in-process Agents SDK baseline.
  const chainMs = await timeRuns(Number(values.reps), chain, 2);
  let checkpoints = 0;
  for await (const _ of checkpointer.list(await chain())) checkpoints++;
  const report: Report = { peer: 'langgraph', saver, versions, handoffs, chainMs, checkpoints };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
