/**
 * The team of the lost-worker tests, loaded by the test and by the worker processes it kills: a
 * clerk whose model call and tool call each take `LOST_WORKER_CALL_MS`, long enough to be killed
 * in. The tool appends each start to `LOST_WORKER_LOG` (its idempotency key, attempt and the
 * heartbeat details it found) and heartbeats its progress.
 */
import fs from 'node:fs';
import { z } from 'zod';
import { defineAgent, defineTool, scripted, Team } from '../../../src';

const callMs = Number(process.env.LOST_WORKER_CALL_MS ?? 3000);

/** One start of the `fileCase` tool, as it logged it. */
export interface ToolStart {
  key: string;
  attempt: number;
  /** What the last heartbeat before this start carried (the progress of a lost start). */
  resumedFrom: unknown;
}

const fileCase = defineTool({
  name: 'fileCase',
  description: 'File the case',
  parameters: z.object({ id: z.string() }),
  execute: async ({ id }, { idempotencyKey, attempt, heartbeat, previousHeartbeat, signal }) => {
    const start: ToolStart = { key: idempotencyKey, attempt, resumedFrom: previousHeartbeat ?? null };
    if (process.env.LOST_WORKER_LOG) fs.appendFileSync(process.env.LOST_WORKER_LOG, `${JSON.stringify(start)}\n`);
    heartbeat({ progress: `filing ${id}` });
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, callMs);
      signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('cancelled'))));
    });
    return `case ${id} filed`;
  },
});

/** The clerk: a model call, the tool call, and the answer. */
export const team = new Team([
  defineAgent({
    id: 'clerk',
    instructions: 'File the case, then say so.',
    model: scripted([
      { toolCalls: [{ name: 'fileCase', arguments: { id: '42' } }], delayMs: callMs },
      { text: 'The case is filed.' },
    ]),
    tools: [fileCase],
  }),
]);
