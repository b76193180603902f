/**
 * The model-based harness in `npm test`: fixed tours through every operation (each lane, every
 * deploy, a worker SIGKILL and a server restart among them), a bounded run of generated sequences
 * (seeded from the clock unless `BATON_MODEL_SEED` is set; the seed is in the test's name and in
 * its failure; `BATON_MODEL_CASES` and `BATON_MODEL_TIME` (ms) bound it). The saved regression
 * cases run in `regressions-N.test.ts`. `npm run drill -- model --cases N` runs many more.
 *
 * A failing generated sequence is shrunk and saved under regressions/ (`BATON_MODEL_SAVE` to put
 * it elsewhere): commit it, with `"skip"` naming the defect while the defect is open.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelRun } from './run';
import { runSequence } from './sequence';
import { ModelSystem } from './system';
import { UNVERSIONED_TOUR, VERSIONED_TOUR } from './tours';

const REGRESSIONS = path.join(__dirname, 'regressions');
const seed = Number(process.env.BATON_MODEL_SEED ?? Date.now() % 2 ** 31);
const cases = Number(process.env.BATON_MODEL_CASES ?? 6);
const timeLimitMs = Number(process.env.BATON_MODEL_TIME ?? 25_000);

let system: ModelSystem;
beforeAll(async () => {
  system = await ModelSystem.create({ dir: fs.mkdtempSync(path.join(os.tmpdir(), 'baton-model-')) });
}, 180_000);
afterAll(async () => {
  await system?.close();
});

describe('the model-based harness', () => {
  it('keeps every invariant on a tour of every operation, unversioned workers', { timeout: 360_000 }, async () => {
    const h = await runSequence(system, 'unversioned', UNVERSIONED_TOUR, `tour-u${seed}`, { strict: false });
    expect(h.steps.length).toBeGreaterThan(10);
  });

  it(
    'keeps every invariant on the unversioned tour with the puppet answering through the AI SDK adapter',
    { timeout: 360_000 },
    async () => {
      const h = await runSequence(system, 'ai_sdk', UNVERSIONED_TOUR, `tour-a${seed}`, { strict: false });
      expect(h.steps.length).toBeGreaterThan(10);
    },
  );

  it(
    'keeps every invariant on a tour of every operation, Worker Deployments and a server restart',
    { timeout: 360_000 },
    async () => {
      const h = await runSequence(system, 'versioned', VERSIONED_TOUR, `tour-v${seed}`, { strict: false });
      expect(h.steps.length).toBeGreaterThan(10);
    },
  );

  it(
    `keeps every invariant in ${cases} generated sequences (seed ${seed}; BATON_MODEL_SEED=${seed} repeats them)`,
    { timeout: 300_000 },
    async () => {
      const save = process.env.BATON_MODEL_SAVE ?? REGRESSIONS;
      const r = await modelRun(system, {
        seed,
        cases,
        maxCommands: 20,
        shrinkRuns: 6,
        timeLimitMs,
        cliEvery: 12,
        saveDir: save,
      });
      const f = r.failure;
      expect(
        f,
        f &&
          `seed ${f.seed} (path ${f.path}): shrunk to ${f.steps.length} steps, saved as ${f.file}:\n${f.violations.join('\n')}\n${JSON.stringify(f.steps)}`,
      ).toBeUndefined();
      expect(r.sequences).toBeGreaterThan(0);
    },
  );
});
