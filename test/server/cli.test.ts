/** `baton serve` and a `baton worker`'s metrics port, as the real command in child processes on a real Temporal server. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/devserver/server';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { caller, STATIC_TOKENS, TOKENS } from './service';

const server = useTemporalServer();
const root = path.resolve(__dirname, '../..');
const TEAM = 'test/server/fixtures/refund-team.ts';

function baton(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(root, 'bin/baton.js'), ...args], {
    cwd: root,
    env: { ...process.env, OPENAI_API_KEY: '', TEMPORAL_ADDRESS: server.env.address, ...env },
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (output.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output.stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, output, exited };
}

async function metricsText(port: number): Promise<string> {
  return fetch(`http://127.0.0.1:${port}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
}

describe('the baton command', () => {
  it('refuses to serve without a way to authenticate callers', async () => {
    const run = baton(['serve', '--port', '0'], { BATON_TOKENS: '', BATON_TOKENS_FILE: '', BATON_JWKS_URL: '' });
    expect(await run.exited).toBe(2);
    expect(run.output.stderr).toContain('no tokens: set BATON_TOKENS');
  });

  it('serves the API with a worker in the same process, and stops on SIGINT', async () => {
    const port = await freePort();
    const queue = taskQueue();
    const run = baton(['serve', '--team', TEAM, '--port', String(port), '--host', '127.0.0.1', '--task-queue', queue], {
      BATON_TOKENS: JSON.stringify(STATIC_TOKENS),
    });
    try {
      await waitFor(
        async () => run.output.stdout,
        (out) => out.includes('served in this process'),
        60_000,
      );
      expect(run.output.stdout).toContain(`baton serve: http://127.0.0.1:${port}`);
      const call = caller(`http://127.0.0.1:${port}`);
      const unknown = await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'sales', input: 'hi' } });
      expect(unknown.status).toBe(400);
      const { workflowId } = (
        await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'triage', input: 'refund order 42' } })
      ).body;
      const listed = await waitFor(
        () => call('GET', '/v1/approvals', { token: TOKENS.alice }),
        (a) => a.body.approvals.length === 1,
      );
      await call('POST', `/v1/runs/${workflowId}/approvals/${listed.body.approvals[0].handoffId}`, {
        token: TOKENS.alice,
        body: { decision: 'approve' },
      });
      const done = await waitFor(
        () => call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.viewer }),
        (a) => a.body.status === 'completed',
      );
      expect(done.body.output).toBe('Refunded order 42.');
      const metrics = await metricsText(port);
      expect(metrics).toMatch(/^baton_handoffs_total\{from="triage",to="refunds"\} 1$/m);
      expect(metrics).toMatch(/^baton_runs_started_total\{agent="triage"\} 1$/m);
      expect(metrics).toContain('process_cpu_user_seconds_total');
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);
    expect(run.output.stderr).toContain('SIGINT: shutting down');
    for (const token of Object.values(TOKENS)) expect(run.output.stdout + run.output.stderr).not.toContain(token);
  });

  it('listens on 127.0.0.1 unless told otherwise, and serves /metrics on BATON_METRICS_PORT behind BATON_METRICS_TOKEN', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const run = baton(['serve', '--port', String(port)], {
      BATON_TOKENS: JSON.stringify(STATIC_TOKENS),
      BATON_METRICS_PORT: String(metricsPort),
      BATON_METRICS_TOKEN: 'scrape-token-1',
      BATON_HOST: '',
    });
    try {
      await waitFor(
        async () => run.output.stdout,
        (out) => out.includes('baton serve: http://'),
        60_000,
      );
      expect(run.output.stdout).toContain(
        `baton serve: http://127.0.0.1:${port} (approvals page /, API /v1, /openapi.json, http://127.0.0.1:${metricsPort}/metrics)`,
      );
      const reach = (url: string, headers: Record<string, string> = {}) =>
        fetch(url, { headers, signal: AbortSignal.timeout(3_000) }).then(
          (r) => r.status,
          () => 'refused',
        );
      expect(await reach(`http://127.0.0.1:${port}/healthz`)).toBe(200);
      // Another loopback address reaches a service on every interface, not one on 127.0.0.1.
      expect(await reach(`http://127.0.0.2:${port}/healthz`)).toBe('refused');
      expect(await reach(`http://127.0.0.1:${port}/metrics`)).toBe(404);
      expect(await reach(`http://127.0.0.1:${metricsPort}/metrics`)).toBe(401);
      expect(await reach(`http://127.0.0.1:${metricsPort}/metrics`, { authorization: 'Bearer scrape-token-1' })).toBe(
        200,
      );
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
    expect(run.output.stdout + run.output.stderr).not.toContain('scrape-token-1');
  });

  it('has a worker serve /metrics on BATON_METRICS_PORT', async () => {
    const port = await freePort();
    const run = baton(['worker', '--team', TEAM, '--task-queue', taskQueue()], { BATON_METRICS_PORT: String(port) });
    try {
      const text = await waitFor(
        () => metricsText(port),
        (t) => t.includes('# TYPE baton_handoffs_total counter'),
        60_000,
      );
      expect(text).toContain('# TYPE baton_model_call_seconds histogram');
      expect(text).toContain('# TYPE baton_guardrail_trips_total counter');
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
  });
});
