/**
 * A bounded run of the harness around request-info (operations/questions.ts): a fixed tour that
 * asks, refuses bad asks and answers, and asks again, then approves; and generated sequences that
 * weigh asking and answering up (`BATON_MODEL_SEED`, `BATON_MODEL_CASES`, `BATON_MODEL_TIME`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from './harness';
import { modelRun } from './run';
import { runSequence } from './sequence';
import { ModelSystem } from './system';

const seed = Number(process.env.BATON_MODEL_SEED ?? Date.now() % 2 ** 31);
const cases = Number(process.env.BATON_MODEL_CASES ?? 3);
const timeLimitMs = Number(process.env.BATON_MODEL_TIME ?? 60_000);
const s = (op: string, params: Record<string, unknown> = {}): Step => ({ op, params });

/** A refund waits for alice; she asks, bad asks are refused, the requester answers, she asks and is answered again, then approves. */
const TOUR: Step[] = [
  s('start', { agent: 0, preset: 'tiny_can', follow: false }),
  s('answer_tool', { call: 0, tool: 'refund', amount: 40, twice: false }),
  s('refused_question', { approval: 0, kind: 'answer_without_question' }),
  s('ask', { approval: 0, n: 4 }),
  s('refused_question', { approval: 0, kind: 'second_question' }),
  s('refused_question', { approval: 0, kind: 'oversized' }),
  s('answer', { approval: 0, n: 4 }),
  s('ask', { approval: 0, n: 5 }),
  s('answer', { approval: 0, n: 5 }),
  s('approve', { approval: 0, signed: false, edit: false, via: 'update' }),
];

let system: ModelSystem;
beforeAll(async () => {
  system = await ModelSystem.create({ dir: fs.mkdtempSync(path.join(os.tmpdir(), 'baton-model-q-')) });
}, 180_000);
afterAll(async () => {
  await system?.close();
});

describe('the harness on request-info', () => {
  it('keeps every invariant on a tour of asking and answering', { timeout: 360_000 }, async () => {
    const h = await runSequence(system, 'unversioned', TOUR, `questions-tour-${seed}`, { strict: true });
    expect(h.steps.length).toBe(TOUR.length);
  });

  it(
    `keeps every invariant in ${cases} generated sequences weighted to questions (seed ${seed})`,
    { timeout: 600_000 },
    async () => {
      const weights = { ask: 12, answer: 12, refused_question: 8, approve: 4, reject: 3 };
      const r = await modelRun(system, { seed, cases, maxCommands: 16, shrinkRuns: 3, timeLimitMs, weights });
      console.log(
        `request-info harness run: ${JSON.stringify({ seed: r.seed, sequences: r.sequences, steps: r.steps, chains: r.chains, checks: r.checks, broken: r.broken, cut: r.cut, operations: r.operations })}`,
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
