/**
 * A bounded run of the harness around policy updates (operations/policy.ts): a fixed tour that
 * loosens (refused) and tightens a running chain's policy, then has a refund approved under it (its
 * export verified, and refused with that approval removed: policyExport.ts); and
 * generated sequences that weigh policy updates up (`BATON_MODEL_SEED`, `BATON_MODEL_CASES`, `BATON_MODEL_TIME`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from './harness';
import { policyExportFigures } from './policyExport';
import { modelRun } from './run';
import { runSequence } from './sequence';
import { ModelSystem } from './system';

const seed = Number(process.env.BATON_MODEL_SEED ?? Date.now() % 2 ** 31);
const cases = Number(process.env.BATON_MODEL_CASES ?? 2);
const timeLimitMs = Number(process.env.BATON_MODEL_TIME ?? 60_000);
const s = (op: string, params: Record<string, unknown> = {}): Step => ({ op, params });

/** A chain's refunds are tightened to alice's approval mid-run, loosenings refused, then a refund waits and alice approves it. */
const TOUR: Step[] = [
  s('start', { agent: 0, preset: 'plain', follow: false }),
  s('policy_loosen', { root: 0, kind: 'refundFree' }),
  s('policy_loosen', { root: 0, kind: 'billingOpen' }),
  s('policy_tighten', { root: 0 }),
  s('policy_loosen', { root: 0, kind: 'payoutByMallory' }),
  s('answer_tool', { call: 0, tool: 'refund', amount: 40, twice: false }),
  s('approve', { approval: 0, signed: false, edit: false, via: 'update' }),
];

let system: ModelSystem;
beforeAll(async () => {
  system = await ModelSystem.create({ dir: fs.mkdtempSync(path.join(os.tmpdir(), 'baton-model-p-')) });
}, 180_000);
afterAll(async () => {
  await system?.close();
});

describe('the harness on policy updates', () => {
  it('keeps every invariant on a tour of loosening and tightening a running chain', { timeout: 360_000 }, async () => {
    // The figures count every sequence the process has judged, earlier test files' among them.
    const before = { ...policyExportFigures };
    const h = await runSequence(system, 'unversioned', TOUR, `policy-tour-${seed}`, { strict: true });
    expect(h.steps.length).toBe(TOUR.length);
    // The refund approved after the update: its export verified, and refused with that approval removed or decided by mallory.
    expect({
      verified: policyExportFigures.verified - before.verified,
      refused: policyExportFigures.refused - before.refused,
    }).toEqual({ verified: 1, refused: 2 });
  });

  it(
    `keeps every invariant in ${cases} generated sequences weighted to policy updates (seed ${seed})`,
    { timeout: 600_000 },
    async () => {
      const weights = { policy_tighten: 10, policy_loosen: 8, answer_tool: 8, approve: 6 };
      const r = await modelRun(system, { seed, cases, maxCommands: 14, shrinkRuns: 2, timeLimitMs, weights });
      console.log(
        `policy harness run: ${JSON.stringify({ seed: r.seed, sequences: r.sequences, steps: r.steps, chains: r.chains, checks: r.checks, broken: r.broken, cut: r.cut, operations: r.operations, policyExports: policyExportFigures })}`,
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
