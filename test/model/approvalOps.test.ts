/**
 * A bounded run of the harness weighted to the approval operations: quorum votes and votes for
 * another's slot (operations/quorum.ts) beside questions and their answers (operations/questions.ts),
 * approvals whose policy reminds and escalates while nobody decides (operations/escalations.ts)
 * and plain decisions (`BATON_MODEL_SEED`, `BATON_MODEL_CASES`, `BATON_MODEL_TIME`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelRun } from './run';
import { ModelSystem } from './system';

const seed = Number(process.env.BATON_MODEL_SEED ?? Date.now() % 2 ** 31);
const cases = Number(process.env.BATON_MODEL_CASES ?? 3);
const timeLimitMs = Number(process.env.BATON_MODEL_TIME ?? 60_000);

let system: ModelSystem;
beforeAll(async () => {
  system = await ModelSystem.create({ dir: fs.mkdtempSync(path.join(os.tmpdir(), 'baton-model-ops-')) });
}, 180_000);
afterAll(async () => {
  await system?.close();
});

describe('the harness on approval operations', () => {
  it(
    `keeps every invariant in ${cases} generated sequences weighted to quorum, delegation, questions and escalations (seed ${seed})`,
    { timeout: 900_000 },
    async () => {
      const weights = {
        quorum_vote: 10,
        delegated_vote: 8,
        ask: 6,
        answer: 6,
        refused_question: 4,
        approve: 4,
        reject: 3,
        start_escalating: 6,
        await_escalation: 4,
      };
      const r = await modelRun(system, { seed, cases, maxCommands: 16, shrinkRuns: 3, timeLimitMs, weights });
      console.log(
        `approval operations harness run: ${JSON.stringify({ seed: r.seed, sequences: r.sequences, steps: r.steps, chains: r.chains, checks: r.checks, broken: r.broken, cut: r.cut, operations: r.operations })}`,
      );
      const f = r.failure;
      expect(
        f,
        f &&
          `seed ${f.seed}: shrunk to ${f.steps.length} steps:\n${f.violations.join('\n')}\n${JSON.stringify(f.steps)}`,
      ).toBeUndefined();
      expect(r.sequences).toBeGreaterThan(0);
    },
  );
});
