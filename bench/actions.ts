/**
 * Actions: `npx tsx bench/actions.ts [--call-ms 5000] [--timeouts 2,3,5,10]`. What an approved
 * handoff costs on Temporal Cloud, in actions, counted on a dev server of its own: each chain's
 * history (`countActions`, by Temporal Cloud's definition) plus the heartbeats and queries the
 * server's own `action` metric saw while it ran. Chains of 1 and 2 approved handoffs, every model
 * call a streamed answer of `--call-ms` from the project's OpenAI-compatible test server; an
 * approved handoff is what the second handoff adds. Then the trade-off: the heartbeats one call
 * sends by heartbeat timeout. A count, not a timing: it may run on a busy machine. Writes
 * bench/actions-results.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { heartbeatIntervalMs } from '../activities/heartbeat';
import { freePort, startDevServer } from '../src/devserver/server';
import { approvedChainActions } from '../test/helpers/actions';
import { startOpenAIServer } from '../test/helpers/openaiServer';
import { table } from './lib';

const { values } = parseArgs({
  options: { 'call-ms': { type: 'string', default: '5000' }, timeouts: { type: 'string', default: '2,3,5,10' } },
});
const callMs = Number(values['call-ms']);
const timeouts = values.timeouts.split(',').map(Number);

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = await startDevServer({ metricsPort: await freePort() });
  const fake = await startOpenAIServer();
  const results: Record<string, unknown> = { date: new Date().toISOString(), node: process.version, callMs };
  try {
    const one = await approvedChainActions(env, fake, { handoffs: 1, callMs, taskQueue: 'bench-actions-1' });
    const two = await approvedChainActions(env, fake, { handoffs: 2, callMs, taskQueue: 'bench-actions-2' });
    const row = (name: string, c: typeof one) => ({
      chain: name,
      ...c.history,
      heartbeats: c.heartbeats,
      queries: c.queries,
      total: c.total,
      'model calls (ms)': c.callMs.join(' '),
    });
    results.chains = { one, two, perApprovedHandoff: two.total - one.total };
    console.log(
      `\nactions of a chain, every model call a ${callMs} ms streamed answer (default heartbeatTimeout, 3 s)`,
    );
    console.log(table([row('1 approved handoff', one), row('2 approved handoffs', two)]));
    console.log(`actions per approved handoff (what the second adds): ${two.total - one.total}`);

    const tradeOff: Record<string, number | string>[] = [];
    for (const seconds of timeouts) {
      const c = await approvedChainActions(env, fake, {
        handoffs: 0,
        callMs,
        heartbeatTimeout: `${seconds} seconds`,
        taskQueue: `bench-actions-hb-${seconds}`,
      });
      tradeOff.push({
        'heartbeat timeout (s)': seconds,
        'heartbeat every (s)': heartbeatIntervalMs(seconds * 1000) / 1000,
        'heartbeats per call': c.heartbeats,
        'actions per call (attempt + heartbeats)': 1 + c.heartbeats,
        'a dead worker noticed within (s)': seconds,
        'call (ms)': c.callMs.join(' '),
      });
    }
    results.tradeOff = tradeOff;
    console.log(`\none ${callMs} ms streamed model call by heartbeat timeout`);
    console.log(table(tradeOff));
  } finally {
    await fake.close();
    await env.teardown();
  }
  fs.writeFileSync(path.join(__dirname, 'actions-results.json'), `${JSON.stringify(results, null, 2)}\n`);
}

void main();
