/**
 * Measures the benchmark chain on Temporal's OpenAI Agents integration against a running Temporal
 * server, with its default (model calls as activities) and with `useLocalActivity`. bench/run.ts
 * runs it as a child process beside baton:
 *
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 npx tsx bench/peers/temporal-openai-agents/main.ts --reps 3 --chains 20
 *
 * Logs go to stderr; the one line on stdout is the JSON report (raw milliseconds, see {@link Report}).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setTracingDisabled } from '@openai/agents-core';
import { Client, Connection } from '@temporalio/client';
import { OpenAIAgentsPlugin } from '@temporalio/openai-agents';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { burst, timeRuns, type BurstTimes } from '../timing';
import { ScriptedModelProvider } from './model';
import type { HandoffChainInput } from './workflows';

/** What one way of running the model calls measured. */
interface ModeReport {
  /** Sequential chains of `handoffs` handoffs, after one warm-up chain: ms each. */
  chainMs: number[];
  /** History events of one chain of `handoffs` handoffs. */
  historyEvents: number;
  /** `chains` chains of `burstHandoffs` handoffs started at once. */
  burst: BurstTimes;
}

/** The JSON line this program prints. */
export interface Report {
  peer: 'temporal-openai-agents';
  versions: Record<string, string>;
  handoffs: number;
  burstHandoffs: number;
  chains: number;
  modes: { activity: ModeReport; localActivity: ModeReport };
}

const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '7' },
    handoffs: { type: 'string', default: '10' },
    chains: { type: 'string', default: '200' },
    'burst-handoffs': { type: 'string', default: '5' },
    latency: { type: 'string', default: '0' },
  },
});
const reps = Number(values.reps);
const handoffs = Number(values.handoffs);
const chains = Number(values.chains);
const burstHandoffs = Number(values['burst-handoffs']);
const latencyMs = Number(values.latency);
const taskQueue = 'bench-peer-openai-agents';

function versionOf(name: string): string {
  return (
    JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
}

async function measure(client: Client): Promise<ModeReport> {
  const chain = (n: number) =>
    client.workflow.execute('handoffChain', {
      taskQueue,
      workflowId: `peer-oa-${Math.random()}`,
      args: [{ handoffs: n } satisfies HandoffChainInput],
    });
  const chainMs = await timeRuns(reps, () => chain(handoffs));
  const workflowId = `peer-oa-history-${Math.random()}`;
  await client.workflow.execute('handoffChain', {
    taskQueue,
    workflowId,
    args: [{ handoffs } satisfies HandoffChainInput],
  });
  const historyEvents = (await client.workflow.getHandle(workflowId).fetchHistory()).events?.length ?? 0;
  return { chainMs, historyEvents, burst: await burst(chains, () => chain(burstHandoffs)) };
}

async function main(): Promise<void> {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('set TEMPORAL_ADDRESS to the Temporal server to measure against (host:port)');
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  setTracingDisabled(true);
  const modelProvider = new ScriptedModelProvider(latencyMs);
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  try {
    const worker = await Worker.create({
      connection: nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('./workflows'),
      plugins: [new OpenAIAgentsPlugin({ modelProvider })],
    });
    // The client's plugin carries the model activity options into each workflow it starts.
    const clientFor = (useLocalActivity: boolean) =>
      new Client({
        connection,
        plugins: [new OpenAIAgentsPlugin({ modelProvider, modelParams: { useLocalActivity } })],
      });
    const modes = await worker.runUntil(async () => ({
      activity: await measure(clientFor(false)),
      localActivity: await measure(clientFor(true)),
    }));
    const report: Report = {
      peer: 'temporal-openai-agents',
      versions: Object.fromEntries(
        ['@temporalio/openai-agents', '@temporalio/worker', '@openai/agents-core'].map((n) => [n, versionOf(n)]),
      ),
      handoffs,
      burstHandoffs,
      chains,
      modes,
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
