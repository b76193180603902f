/**
 * A bounded run of the harness weighted to approvals whose policy acts while nobody decides
 * (operations/escalations.ts): chains started with notify, decide and reminder steps, tool calls and
 * handoffs that wait under them, and waits until their steps come due (`BATON_MODEL_SEED`,
 * `BATON_MODEL_CASES`, `BATON_MODEL_TIME`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelRun } from './run';
import { ModelSystem } from './system';

const seed = Number(process.env.BATON_MODEL_SEED ?? Date.now() % 2 ** 31);
const cases = Number(process.env.BATON_MODEL_CASES ?? 2);
const timeLimitMs = Number(process.env.BATON_MODEL_TIME ?? 60_000);

let system: ModelSystem;
beforeAll(async () => {
  system = await ModelSystem.create({ dir: fs.mkdtempSync(path.join(os.tmpdir(), 'baton-model-escalations-')) });
}, 180_000);
afterAll(async () => {
  await system?.close();
});

describe('the harness on escalating approvals', () => {
  it(
    `keeps every invariant in ${cases} generated sequences weighted to reminders and escalations (seed ${seed})`,
    { timeout: 900_000 },
    async () => {
      // Only escalating chains start, so every approval the sequence meets has a policy that acts.
      const weights = {
        start: 0,
        chat_start: 0,
        event_deliver: 0,
        start_escalating: 30,
        await_escalation: 20,
        answer_tool: 15,
        answer_handoff: 8,
        approve: 3,
        reject: 2,
      };
      const r = await modelRun(system, { seed, cases, maxCommands: 14, shrinkRuns: 2, timeLimitMs, weights });
      console.log(
        `escalation harness run: ${JSON.stringify({ seed: r.seed, sequences: r.sequences, steps: r.steps, chains: r.chains, checks: r.checks, broken: r.broken, cut: r.cut, operations: r.operations })}`,
      );
      const f = r.failure;
      expect(
        f,
        f &&
          `seed ${f.seed}: shrunk to ${f.steps.length} steps:\n${f.violations.join('\n')}\n${JSON.stringify(f.steps)}`,
      ).toBeUndefined();
      expect(r.sequences).toBeGreaterThan(0);
      expect(r.operations.start_escalating ?? 0).toBeGreaterThan(0);
    },
  );
});
