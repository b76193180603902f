/**
 * A bounded run of the harness around keys an identity provider publishes (operations/jwks.ts): a
 * fixed tour in which a chain's refund is refused with the provider's key its snapshot did not take
 * and decided with the one it did, the provider rotates, and a chain started after the rotation is
 * loosened by the operator's passkey while its refund waits (refused from another origin and when
 * sent again), then decided the same way; and generated sequences that weigh those decisions up (`BATON_MODEL_SEED`,
 * `BATON_MODEL_CASES`, `BATON_MODEL_TIME`).
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

/** A refund decided with the provider's key, a rotation, and a refund of a chain started after it. */
const TOUR: Step[] = [
  s('start', { agent: 0, preset: 'plain', follow: false }),
  s('answer_tool', { call: 0, tool: 'refund', amount: 40, twice: false }),
  s('jwks_decide', { approval: 0, refused: true }),
  s('jwks_decide', { approval: 0, refused: false }),
  s('answer_text', { call: 0, text: 'Done.' }),
  s('jwks_rotate'),
  s('start', { agent: 0, preset: 'plain', follow: false }),
  s('answer_tool', { call: 0, tool: 'refund', amount: 60, twice: false }),
  s('operator_passkey_override', { chain: 0, kind: 'wrong_origin' }),
  s('operator_passkey_override', { chain: 0, kind: 'valid' }),
  s('operator_passkey_override', { chain: 0, kind: 'replayed' }),
  s('jwks_decide', { approval: 0, refused: true }),
  s('jwks_decide', { approval: 0, refused: false }),
];

let system: ModelSystem;
beforeAll(async () => {
  system = await ModelSystem.create({ dir: fs.mkdtempSync(path.join(os.tmpdir(), 'baton-model-jwks-')) });
}, 180_000);
afterAll(async () => {
  await system?.close();
});

describe("the harness on keys an identity provider publishes and operators' passkeys", () => {
  it(
    'keeps every invariant on a tour of decisions with published keys across a rotation',
    { timeout: 360_000 },
    async () => {
      const h = await runSequence(system, 'unversioned', TOUR, `jwks-tour-${seed}`, { strict: true });
      expect(h.steps.length).toBe(TOUR.length);
    },
  );

  it(
    `keeps every invariant in ${cases} generated sequences weighted to published-key decisions (seed ${seed})`,
    { timeout: 600_000 },
    async () => {
      const weights = {
        start: 15,
        jwks_rotate: 8,
        jwks_decide: 40,
        operator_passkey_override: 10,
        answer_tool: 30,
        answer_text: 3,
      };
      const r = await modelRun(system, { seed, cases, maxCommands: 24, shrinkRuns: 2, timeLimitMs, weights });
      console.log(
        `jwks harness run: ${JSON.stringify({ seed: r.seed, sequences: r.sequences, steps: r.steps, chains: r.chains, checks: r.checks, broken: r.broken, cut: r.cut, operations: r.operations })}`,
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
