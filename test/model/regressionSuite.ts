/**
 * The saved regression cases (regressions/), replayed in `npm test`. They are split over the
 * `regressions-N.test.ts` files, each with a system of its own, so the cases (most of their time
 * spent waiting on deadlines, retries and restarts) run beside the rest of the suite instead of
 * one after another behind the tours.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { regressionCases } from './run';
import { runSequence } from './sequence';
import { ModelSystem } from './system';

const REGRESSIONS = path.join(__dirname, 'regressions');

/** Replay part `part` (0-based) of `parts` of the saved cases: those whose place in name order is `part` modulo `parts`. */
export function regressionSuite(part: number, parts: number): void {
  const seed = Number(process.env.BATON_MODEL_SEED ?? Date.now() % 2 ** 31);
  let system: ModelSystem;
  beforeAll(async () => {
    system = await ModelSystem.create({ dir: fs.mkdtempSync(path.join(os.tmpdir(), `baton-model-r${part}-`)) });
  }, 180_000);
  afterAll(async () => {
    await system?.close();
  });

  describe(`regression cases (test/model/regressions/, part ${part + 1} of ${parts})`, () => {
    const saved = regressionCases(REGRESSIONS).filter((_, i) => i % parts === part);
    it.each(saved.filter((c) => !c.skip))('$name keeps every invariant', { timeout: 240_000 }, async (c) => {
      await runSequence(system, c.lane, c.steps, `${c.name.replace(/[^\w-]/g, '')}-${seed}`, { strict: true });
    });
    for (const c of saved.filter((x) => x.skip)) it.skip(`${c.name} (skipped: ${c.skip})`, () => undefined);
  });
}

/** How many files the cases are split over: `regressions-1.test.ts` … */
export const REGRESSION_PARTS = 3;
