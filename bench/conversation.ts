/**
 * History bytes per turn of a long conversation: `npx tsx bench/conversation.ts [--turns 10000]`
 * (`--quick`: 1,000 turns). Beside today's figure — one chain whose agent reads a ~200-token note a
 * turn, so every model call records the whole conversation — it runs the `conversation` workflow
 * with ~200-token user messages: with compaction (the default), and with compaction and the
 * claim-check codec. Prints tables and writes bench/conversation-results.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { defineAgent, scripted, Team } from '../src';
import { Baton } from '../src/client/baton';
import { startDevServer, type DevServer } from '../src/devserver/server';
import { batonDataConverter } from '../src/payloads/codec';
import type { PayloadCodecOptions } from '../src/payloads/keys';
import { createWorker } from '../src/worker';
import { chainTurnBytes, conversationTurnBytes, forEachRun, meanBefore, type TurnBytes } from './conversationHistory';
import { round, table } from './lib';
import { conversationTeam, NOTE } from './teams';

/** What the summarizing model answers: about 200 tokens. */
const SUMMARY = `The customer has described the same problem turn after turn: ${NOTE.slice(0, 700)}`;

/** One agent answering each message briefly; its summaries (compactions) are ~200 tokens. */
function talkerTeam(): Team {
  return new Team([
    defineAgent({
      id: 'talker',
      instructions: 'Listen to the customer.',
      model: scripted({
        rules: [
          { whenIncludes: 'user: ', reply: { text: SUMMARY } },
          { whenIncludes: '', reply: { text: 'Noted, go on.' } },
        ],
      }),
    }),
  ]);
}

/** A conversation of `turns` ~200-token messages, sent one after another; its bytes per turn. */
async function conversationBytes(env: DevServer, turns: number, name: string, codec: PayloadCodecOptions = {}) {
  const queue = `bench-conversation-${name}`;
  const worker = await createWorker({ team: talkerTeam(), connection: env.nativeConnection, taskQueue: queue, codec });
  const client = new Client({ connection: env.connection, dataConverter: batonDataConverter(codec) });
  const started = performance.now();
  const id = await worker.runUntil(async () => {
    const chat = new Baton({ client, taskQueue: queue }).conversation('talker', { id: `${queue}-${Date.now()}` });
    for (let t = 1; t <= turns; t++) {
      await chat.send(`Turn ${t}. ${NOTE}`);
      if (t % 1000 === 0) console.error(`  ${name}: ${t} turns (${round((performance.now() - started) / 1000, 0)} s)`);
    }
    await chat.end();
    return chat.id;
  });
  const seconds = (performance.now() - started) / 1000;
  const reader = conversationTurnBytes(codec.claimCheck?.dir);
  const runs = await forEachRun(env, id, reader.read);
  return { turns: reader.turns, runs, seconds };
}

/** Today: one chain whose agent reads a note a turn until `maxTurns` stops it. */
async function chainBytes(env: DevServer, turns: number) {
  const queue = 'bench-conversation-chain';
  const worker = await createWorker({ team: conversationTeam(), connection: env.nativeConnection, taskQueue: queue });
  const started = performance.now();
  const id = await worker.runUntil(async () => {
    const run = await new Baton({ client: env.client, taskQueue: queue }).start('talker', 'Read the notes.', {
      maxTurns: turns,
    });
    await run.result().catch(() => undefined);
    return run.workflowId;
  });
  const seconds = (performance.now() - started) / 1000;
  const reader = chainTurnBytes();
  const runs = await forEachRun(env, id, reader.read);
  return { turns: reader.turns, runs, seconds };
}

/** Today's figure past the turns measured: linear in the turn, and refused once a call's payload passes Temporal's 2 MB. */
function beyond(turns: number[], t: number): string {
  const last = turns.length;
  const estimate = ((turns[last - 1] ?? NaN) * t) / last;
  return estimate > 2 * 2 ** 20 ? `~${kb(estimate)} (extrapolated): over the 2 MB payload limit` : '—';
}

const kb = (bytes: number) => (Number.isFinite(bytes) ? round(bytes / 1024, 1) : '—');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      turns: { type: 'string' },
      quick: { type: 'boolean', default: false },
      'chain-turns': { type: 'string' },
    },
  });
  const turns = Number(values.turns ?? (values.quick ? 1000 : 10_000));
  const chainTurns = Number(values['chain-turns'] ?? Math.min(turns, 1000));
  const checkpoints = [10, 100, 1000, 10_000].filter((t) => t <= turns);
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = await startDevServer();
  const blobs = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-blobs-'));
  try {
    console.error(`today's chain: ${chainTurns} turns`);
    const today = await chainBytes(env, chainTurns);
    console.error(`conversation with compaction: ${turns} turns`);
    const compacted = await conversationBytes(env, turns, 'compaction');
    console.error(`conversation with compaction and claim check: ${turns} turns`);
    const claimed = await conversationBytes(env, turns, 'claim-check', { claimCheck: { dir: blobs } });
    const at = (xs: TurnBytes[], t: number, pick: keyof TurnBytes) =>
      meanBefore(
        xs.map((x) => x[pick]),
        t,
        Math.min(t, 100),
      );
    const rows = checkpoints.map((t) => ({
      turn: t,
      'today: model calls (chain)': t <= chainTurns ? kb(today.turns[t - 1] ?? NaN) : beyond(today.turns, t),
      'compaction: model calls': kb(at(compacted.turns, t, 'modelCalls')),
      'compaction: all history': kb(at(compacted.turns, t, 'history')),
      '+ claim check: all history': kb(at(claimed.turns, t, 'history')),
      '+ claim check: blob store': kb(at(claimed.turns, t, 'blobs')),
    }));
    const results = {
      date: new Date().toISOString(),
      node: process.version,
      turns,
      note: 'KB per turn; conversation figures are the mean of the 100 turns up to the checkpoint (of the first 10 at turn 10)',
      bytesPerTurn: rows,
      runs: { today: today.runs, compaction: compacted.runs, claimCheck: claimed.runs },
      seconds: {
        today: round(today.seconds, 0),
        compaction: round(compacted.seconds, 0),
        claimCheck: round(claimed.seconds, 0),
      },
      largestTurnKb: {
        compaction: kb(Math.max(...compacted.turns.map((x) => x.history))),
        claimCheck: kb(Math.max(...claimed.turns.map((x) => x.history))),
      },
    };
    console.log(
      `\nHistory KB per turn, ~200-token messages (conversation: mean of the 100 turns up to the turn)\n${table(rows)}`,
    );
    console.log(
      `\nruns (continue-as-new): today ${today.runs}, compaction ${compacted.runs}, claim check ${claimed.runs}; largest turn: ${results.largestTurnKb.compaction} KB / ${results.largestTurnKb.claimCheck} KB`,
    );
    console.log(
      `seconds: today ${results.seconds.today} (${chainTurns} turns), compaction ${results.seconds.compaction}, claim check ${results.seconds.claimCheck} (${turns} turns)`,
    );
    const out = path.join(__dirname, 'conversation-results.json');
    fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), out)}`);
  } finally {
    await env.teardown();
    fs.rmSync(blobs, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
