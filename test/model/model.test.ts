/**
 * The model-based harness in `npm test`: two fixed tours through every operation (each lane, every
 * deploy, a worker SIGKILL and a server restart among them), a bounded run of generated sequences
 * (seeded from the clock unless `BATON_MODEL_SEED` is set; the seed is in the test's name and in
 * its failure), and the saved regression cases. `npm run drill -- model --cases N` runs many more.
 *
 * A failing generated sequence is shrunk and saved under regressions/ (`BATON_MODEL_SAVE` to put
 * it elsewhere): commit it, with `"skip"` naming the defect while the defect is open.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from './harness';
import { modelRun, regressionCases } from './run';
import { runSequence } from './sequence';
import { ModelSystem } from './system';

const REGRESSIONS = path.join(__dirname, 'regressions');
const seed = Number(process.env.BATON_MODEL_SEED ?? Date.now() % 2 ** 31);
const cases = Number(process.env.BATON_MODEL_CASES ?? 6);

let system: ModelSystem;
beforeAll(async () => {
  system = await ModelSystem.create({ dir: fs.mkdtempSync(path.join(os.tmpdir(), 'baton-model-')) });
}, 180_000);
afterAll(async () => {
  await system?.close();
});

const s = (op: string, params: Record<string, unknown> = {}): Step => ({ op, params });

/**
 * Unversioned workers: a followed chain refunds (approved with edited arguments, signed), hands off
 * to billing (a refused decision first, then a flood, then alice), a worker is SIGKILLed mid-call,
 * v1 goes away, the stranded chain fails with TeamMismatchError and is migrated by replay; a
 * conversation takes messages under each mid-turn policy, is steered and continues as new.
 */
const UNVERSIONED_TOUR: Step[] = [
  s('start', { agent: 0, preset: 'plain', follow: true }),
  s('chat_start', { agent: 1, midTurn: 'enqueue', compact: true, tinyCan: true, stream: true }),
  s('answer_tool', { call: 0, tool: 'refund', amount: 40, twice: true }),
  s('approve', { approval: 0, signed: true, edit: true, via: 'update' }),
  s('answer_handoff', { call: 0, target: 0, invalid: false }),
  s('refused_decision', { approval: 0, kind: 'not_approver' }),
  s('flood', { approval: 0, seed: 7, n: 20 }),
  s('approve', { approval: 0, signed: false, edit: false, via: 'signal' }),
  s('kill_worker', { slot: 0 }),
  s('chat_send', { chat: 0, midTurn: 'interrupt', long: true, stream: false }),
  s('steer', { root: 1, interrupt: false }),
  s('answer_text', { call: 1, text: 'Done.' }),
  s('chat_send', { chat: 0, midTurn: 'reject', long: false, stream: true }),
  s('answer_tool', { call: 0, tool: 'lookup', amount: 1, twice: false }),
  s('redeploy', { mode: 'v1_gone' }),
  s('replay', { chain: 0, overrides: true }),
  s('answer_text', { call: 0, text: 'Here is the answer: 42.' }),
];

/**
 * Worker Deployments: chains continue as new every few steps, one delegates to research (whose
 * refund waits in the specialist), the server is restarted while they wait, v2 is deployed beside
 * the draining v1, overrides and interrupts arrive, a conversation rolls a turn back and is ended.
 */
const VERSIONED_TOUR: Step[] = [
  s('start', { agent: 0, preset: 'tiny_can', follow: true }),
  s('start', { agent: 1, preset: 'signed', follow: false }),
  s('answer_delegate', { call: 0 }),
  s('answer_handoff', { call: 0, target: 1, invalid: false }),
  s('chat_start', { agent: 0, midTurn: 'rollback', compact: false, tinyCan: false, stream: false }),
  s('restart_server', { downMs: 500 }),
  s('redeploy', { mode: 'drain' }),
  s('override', { chain: 0, maxHandoffs: 4, bogus: false }),
  s('override', { chain: 1, maxHandoffs: 2, bogus: true }),
  s('steer', { root: 0, interrupt: true }),
  s('chat_send', { chat: 0, midTurn: 'rollback', long: false, stream: false }),
  s('answer_tool', { call: 0, tool: 'payout', amount: 9, twice: false }),
  s('refused_decision', { approval: 0, kind: 'unsigned' }),
  s('approve', { approval: 0, signed: true, edit: false, via: 'update' }),
  s('answer_handoff', { call: 0, target: 0, invalid: true }),
  s('chat_end', { chat: 0 }),
  s('reject', { approval: 0, via: 'update' }),
];

describe('the model-based harness', () => {
  it('keeps every invariant on a tour of every operation, unversioned workers', { timeout: 240_000 }, async () => {
    const h = await runSequence(system, 'unversioned', UNVERSIONED_TOUR, `tour-u${seed}`, { strict: false });
    expect(h.steps.length).toBeGreaterThan(10);
  });

  it('keeps every invariant on a tour of every operation, Worker Deployments and a server restart', { timeout: 240_000 }, async () => {
    const h = await runSequence(system, 'versioned', VERSIONED_TOUR, `tour-v${seed}`, { strict: false });
    expect(h.steps.length).toBeGreaterThan(10);
  });

  it(`keeps every invariant in ${cases} generated sequences (seed ${seed}; BATON_MODEL_SEED=${seed} repeats them)`, { timeout: 300_000 }, async () => {
    const save = process.env.BATON_MODEL_SAVE ?? REGRESSIONS;
    const r = await modelRun(system, { seed, cases, maxCommands: 20, shrinkRuns: 6, timeLimitMs: 120_000, cliEvery: 12, saveDir: save });
    const f = r.failure;
    expect(f, f && `seed ${f.seed} (path ${f.path}): shrunk to ${f.steps.length} steps, saved as ${f.file}:\n${f.violations.join('\n')}\n${JSON.stringify(f.steps)}`).toBeUndefined();
    expect(r.sequences).toBeGreaterThan(0);
  });
});

describe('regression cases (test/model/regressions/)', () => {
  const saved = regressionCases(REGRESSIONS);
  it.each(saved.filter((c) => !c.skip))('$name keeps every invariant', { timeout: 240_000 }, async (c) => {
    await runSequence(system, c.lane, c.steps, `${c.name.replace(/[^\w-]/g, '')}-${seed}`, { strict: true });
  });
  for (const c of saved.filter((x) => x.skip)) it.skip(`${c.name} (skipped: ${c.skip})`, () => undefined);
});
