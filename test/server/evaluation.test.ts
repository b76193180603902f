/**
 * Evaluation on the HTTP service, on a real Temporal server: an eval's report, an experiment's
 * figures and stop, a start in an experiment, success per agent and edge, saving a chain into a
 * dataset, and the pages that show them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineAgent, scripted, Team } from '../../src';
import { evalCases } from '../../src/eval/cases';
import { runEval } from '../../src/eval/run';
import { PAGE_ASSETS } from '../../src/server/page/html';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { TOKENS, withService } from './service';

const server = useTemporalServer();

function team(): Team {
  return new Team([
    defineAgent({
      id: 'triage',
      instructions: 'Route.',
      model: scripted({ rules: [{ whenIncludes: '', reply: { handoff: { to: 'billing', message: 'a bill' } } }] }),
      handoffs: ['billing'],
    }),
    defineAgent({
      id: 'billing',
      instructions: 'Bill.',
      model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'paid' } }] }),
    }),
  ]);
}

describe('evaluation on the HTTP service', () => {
  it('shows an eval, an experiment (stopped by its caller), agent and edge figures, and saves chains into datasets', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-datasets-'));
    await withService(
      server.env,
      team(),
      async ({ baton, call }) => {
        // An experiment whose variants differ by run options; a start in it through the API.
        const experiment = `api-${Date.now()}`;
        await baton.experiments.start({
          id: experiment,
          variants: [{ name: 'a' }, { name: 'b', options: { maxHandoffs: 2 } }],
        });
        const started = await call('POST', '/v1/runs', {
          token: TOKENS.ops,
          body: { agent: 'triage', input: 'my bill', experiment },
        });
        expect(started.status).toBe(201);
        await baton.getRun(started.body.workflowId).result();
        const unknown = await call('POST', '/v1/runs', {
          token: TOKENS.ops,
          body: { agent: 'triage', input: 'my bill', experiment: 'nope' },
        });
        expect(unknown.status).toBe(400);
        expect(unknown.body.errors).toEqual([
          { path: 'experiment', message: expect.stringContaining('no such experiment') },
        ]);

        await waitFor(
          () =>
            baton.client.workflow
              .count(`BatonVariant STARTS_WITH "${experiment}:" AND ExecutionStatus = "Completed"`)
              .then((c) => c.count),
          (n) => n === 1,
        );
        const figures = await call('GET', `/v1/experiments/${experiment}`, { token: TOKENS.viewer });
        expect(figures.status).toBe(200);
        expect(
          figures.body.variants.map((v: { chains: number }) => v.chains).reduce((a: number, b: number) => a + b, 0),
        ).toBe(1);
        expect(
          (await call('POST', `/v1/experiments/${experiment}/stop`, { token: TOKENS.viewer, body: { winner: 'b' } }))
            .status,
        ).toBe(403);
        expect(
          (await call('POST', `/v1/experiments/${experiment}/stop`, { token: TOKENS.ops, body: { winner: 'c' } }))
            .status,
        ).toBe(409);
        const stopped = await call('POST', `/v1/experiments/${experiment}/stop`, {
          token: TOKENS.ops,
          body: { winner: 'b', reason: 'cheaper' },
        });
        expect(stopped.body).toMatchObject({ status: 'stopped', winner: 'b', stoppedBy: 'ops', reason: 'cheaper' });
        expect((await call('GET', '/v1/experiments/nope', { token: TOKENS.viewer })).status).toBe(404);

        // An eval of the same team against that chain: every answer reused.
        const cases = await evalCases(baton.client, { ids: [started.body.workflowId] });
        const report = await runEval({
          client: baton.client,
          connection: server.env.nativeConnection,
          team: team(),
          cases,
          pollMs: 100,
        });
        const shown = await call('GET', `/v1/evals/${report.summary.evalId}`, { token: TOKENS.viewer });
        expect(shown.body).toMatchObject({
          status: 'completed',
          report: { summary: { cases: 1, reused: 2, modelCalls: 0, regressions: [] } },
        });
        expect((await call('GET', '/v1/evals/nope', { token: TOKENS.viewer })).status).toBe(404);
        expect((await call('GET', `/v1/evals/${started.body.workflowId}`, { token: TOKENS.viewer })).status).toBe(409);

        const stats = await call(
          'GET',
          `/v1/stats?since=10m&query=${encodeURIComponent(`WorkflowId = "${started.body.workflowId}"`)}`,
          { token: TOKENS.viewer },
        );
        expect(stats.body).toMatchObject({
          chains: 1,
          edges: [{ from: 'triage', to: 'billing', handoffs: 1, completed: 1, successRate: 1 }],
        });
        const badSince = await call('GET', '/v1/stats?since=yesterday', { token: TOKENS.viewer });
        expect(badSince.status).toBe(400);
        expect(badSince.body.errors[0].path).toBe('since');

        const saved = await call('POST', `/v1/runs/${started.body.workflowId}/dataset`, {
          token: TOKENS.ops,
          body: { verdict: 'good', dataset: 'billing' },
        });
        expect(saved).toMatchObject({ status: 201, body: { dataset: 'billing', line: 1, verdict: 'good' } });
        expect(JSON.parse(fs.readFileSync(path.join(dir, 'billing.jsonl'), 'utf8'))).toMatchObject({
          agent: 'triage',
          input: 'my bill',
          chainId: started.body.workflowId,
          expect: { route: ['triage', 'billing'], finalAgent: 'billing' },
        });
        expect(
          (
            await call('POST', `/v1/runs/${started.body.workflowId}/dataset`, {
              token: TOKENS.ops,
              body: { verdict: 'bad', dataset: '../etc' },
            })
          ).status,
        ).toBe(400);
        expect(
          (
            await call('POST', `/v1/runs/${started.body.workflowId}/dataset`, {
              token: TOKENS.ops,
              body: { verdict: 'bad', dataset: 'billing' },
            })
          ).status,
        ).toBe(409);

        for (const page of [`/evals/${report.summary.evalId}`, `/experiments/${experiment}`]) {
          const html = await call('GET', page);
          expect(html.status).toBe(200);
          expect(html.text).toContain('<script src="../assets/baton.js" defer></script>');
        }
      },
      { service: { datasets: { dir } } },
    );
  }, 120_000);

  it('answers 404 for saving into a dataset when the service keeps none; its page script parses', async () => {
    await withService(server.env, team(), async ({ call }) => {
      const none = await call('POST', '/v1/runs/any/dataset', {
        token: TOKENS.ops,
        body: { verdict: 'good', dataset: 'x' },
      });
      expect(none.status).toBe(404);
      expect(none.body.detail).toContain('--dataset-dir');
    });
    expect(() => new Function(PAGE_ASSETS['baton.js']!.body)).not.toThrow();
  });
});
