/**
 * A bounded run of the harness around passkey decisions (operations/passkeys.ts): a fixed tour in
 * which a chain trusting alice's and bob's passkeys has a refund waiting, refuses forged,
 * wrong-challenge and other-approver assertions, takes alice's, refuses a replay at the next
 * refund and takes her next; a tour of two chains whose refunds one batch decides with an
 * assertion each, one signed with bob's passkey in alice's name and refused alone, then taken in a
 * second batch; and generated sequences that weigh passkey decisions up
 * (`BATON_MODEL_SEED`, `BATON_MODEL_CASES`, `BATON_MODEL_TIME`).
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

/** Two refunds of a chain that requires signed decisions, each decided by alice's passkey after assertions it must refuse. */
const TOUR: Step[] = [
  s('passkey_start', { agent: 0, requireSignature: true }),
  s('answer_tool', { call: 0, tool: 'refund', amount: 40, twice: false }),
  s('passkey_refused', { approval: 0, kind: 'forged' }),
  s('passkey_refused', { approval: 0, kind: 'wrong_challenge' }),
  s('passkey_refused', { approval: 0, kind: 'other_approver' }),
  s('passkey_decide', { approval: 0 }),
  s('answer_tool', { call: 0, tool: 'refund', amount: 60, twice: false }),
  s('passkey_refused', { approval: 0, kind: 'replayed' }),
  s('passkey_decide', { approval: 0 }),
  s('answer_text', { call: 0, text: 'Done.' }),
];

/** Two chains' refunds in one passkey batch, one signed with a key not registered for alice (refused alone); then that one in a batch of its own. */
const BATCH_TOUR: Step[] = [
  s('passkey_start', { agent: 0, requireSignature: true }),
  s('passkey_start', { agent: 0, requireSignature: false }),
  s('answer_tool', { call: 0, tool: 'refund', amount: 40, twice: false }),
  s('answer_tool', { call: 0, tool: 'refund', amount: 50, twice: false }),
  s('passkey_batch', { approval: 0, spoil: true }),
  s('passkey_batch', { approval: 0, spoil: false }),
];

let system: ModelSystem;
beforeAll(async () => {
  system = await ModelSystem.create({ dir: fs.mkdtempSync(path.join(os.tmpdir(), 'baton-model-pk-')) });
}, 180_000);
afterAll(async () => {
  await system?.close();
});

describe('the harness on passkey decisions', () => {
  it('keeps every invariant on a tour of refused and taken passkey assertions', { timeout: 360_000 }, async () => {
    const h = await runSequence(system, 'unversioned', TOUR, `passkeys-tour-${seed}`, { strict: true });
    expect(h.steps.length).toBe(TOUR.length);
  });

  it('keeps every invariant on a tour of passkey batches', { timeout: 360_000 }, async () => {
    const h = await runSequence(system, 'unversioned', BATCH_TOUR, `passkeys-batch-tour-${seed}`, { strict: true });
    expect(h.steps).toEqual(BATCH_TOUR);
    // Both refunds decided by alice's passkey, one batch each: the spoiled one refused first, taken after.
    expect(h.model.roots.map((r) => r.decided.map((d) => [d.outcome, d.signed]))).toEqual([
      [['approved', true]],
      [['approved', true]],
    ]);
  });

  it(
    `keeps every invariant in ${cases} generated sequences weighted to passkey decisions (seed ${seed})`,
    { timeout: 600_000 },
    async () => {
      const weights = {
        passkey_start: 20,
        passkey_decide: 25,
        passkey_refused: 25,
        passkey_batch: 15,
        answer_tool: 25,
        start: 2,
      };
      const r = await modelRun(system, { seed, cases, maxCommands: 24, shrinkRuns: 2, timeLimitMs, weights });
      console.log(
        `passkey harness run: ${JSON.stringify({ seed: r.seed, sequences: r.sequences, steps: r.steps, chains: r.chains, checks: r.checks, broken: r.broken, cut: r.cut, operations: r.operations })}`,
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
