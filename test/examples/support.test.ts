import { spawn, execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Baton, type BatonRun } from '../../src';
import { RefundLedger } from '../../examples/support/ledger';
import { team } from '../../examples/support/team';
import { activitiesInHistory } from '../helpers/history';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { TYPESCRIPT, typescriptCode } from '../helpers/typescript';

const server = useTemporalServer();
const REFUND_REQUEST = 'Hi, I would like a refund for order 1042: the teapot arrived broken.';
const fast = { retry: { initialInterval: '100 ms', maximumInterval: '500 ms' } };
const ROOT = path.resolve(__dirname, '../..');

let dataDir: string;
beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-support-test-'));
  process.env.BATON_EXAMPLE_DATA = dataDir;
});
afterAll(() => {
  delete process.env.BATON_EXAMPLE_DATA;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function waitingHandoff(run: BatonRun): Promise<string> {
  const [waiting] = await waitFor(
    () => run.pendingApprovals(),
    (p) => p.length > 0,
  );
  return waiting!.handoffId;
}

async function approvalsAsked(baton: Baton, workflowId: string): Promise<number> {
  const audit = await baton.audit(workflowId);
  return audit.events.filter((e) => e.kind === 'approval_requested').length;
}

describe('support example: triage after a refused handoff', () => {
  it('answers the customer after a rejection, without asking for approval again', async () => {
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('triage', REFUND_REQUEST, fast);
      await baton.reject(run.workflowId, await waitingHandoff(run), {
        approver: 'alice',
        reason: 'not covered by the warranty',
      });
      const result = await run.result();
      expect(result.finalAgent).toBe('triage');
      expect(result.output).toMatch(/declined this refund/);
      expect(result.handoffChain).toEqual([]);
      expect(await approvalsAsked(baton, run.workflowId)).toBe(1);
      const calls = (await activitiesInHistory(run.handle)).filter((a) => a.name === 'callModel');
      expect(calls.map((a) => a.summary)).toEqual(['triage', 'triage']);
    });
  });

  it('answers the customer when nobody approves in time, without asking again', async () => {
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('triage', REFUND_REQUEST, {
        ...fast,
        approvals: [{ to: 'refunds', timeout: '1 second', onTimeout: 'reject' }],
      });
      const result = await run.result();
      expect(result.finalAgent).toBe('triage');
      expect(result.output).toMatch(/could not approve your refund in time/);
      expect(result.handoffChain).toEqual([]);
      expect(await approvalsAsked(baton, run.workflowId)).toBe(1);
    });
  });

  it('refunds once when approved, and a second chain asking for the same order is told it is refunded already', async () => {
    await withWorker(server.env, team, async (baton) => {
      const first = await baton.start('triage', REFUND_REQUEST, fast);
      await baton.approve(first.workflowId, await waitingHandoff(first), { approver: 'alice' });
      expect((await first.result()).output).toMatch(/Your refund of \$59\.90 for order 1042/);
      const second = await baton.start('triage', REFUND_REQUEST, fast);
      await baton.approve(second.workflowId, await waitingHandoff(second), { approver: 'alice' });
      expect((await second.result()).output).toMatch(/already been refunded/);
      const refunds = new RefundLedger()
        .list()
        .filter(
          (r) =>
            r.idempotencyKey.startsWith(`${first.workflowId}:`) || r.idempotencyKey.startsWith(`${second.workflowId}:`),
        );
      expect(refunds.map((r) => r.idempotencyKey.split(':').slice(0, 2).join(':'))).toEqual([
        `${first.workflowId}:refunds`,
      ]);
    });
  });
});

describe('support example: refunds above $100 wait for a person', () => {
  const BIG_REFUND = 'Please refund order 1077, the espresso machine stopped working.';
  const waitingCall = (run: BatonRun) =>
    waitFor(
      () => run.pendingApprovals(),
      (p) => p.some((w) => w.tool),
    ).then((p) => p.find((w) => w.tool)!);

  it('tells the customer when the refund call is rejected, and pays nothing', async () => {
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('triage', BIG_REFUND, fast);
      await baton.approve(run.workflowId, await waitingHandoff(run), { approver: 'alice' });
      const call = await waitingCall(run);
      expect(call).toMatchObject({
        from: 'refunds',
        to: 'tool:issueRefund',
        tool: { name: 'issueRefund', arguments: '{"orderId":"1077","amount":249,"reason":"stopped working"}' },
      });
      await baton.reject(run.workflowId, call.handoffId, {
        approver: 'manager',
        reason: 'send it in for repair first',
      });
      const result = await run.result();
      expect(result.output).toMatch(/refunds this large need a manager, who did not approve it/);
      expect(new RefundLedger().list().filter((r) => r.idempotencyKey.startsWith(`${run.workflowId}:`))).toEqual([]);
      expect(result.controls).toMatchObject({ tool_approvals_requested: 1, tool_calls_rejected: 1 });
    });
  });

  it('pays the amount a manager approves instead of the one asked for', async () => {
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('triage', BIG_REFUND, fast);
      await baton.approve(run.workflowId, await waitingHandoff(run), { approver: 'alice' });
      const call = await waitingCall(run);
      await run.handle.executeUpdate('decideHandoff', {
        args: [
          {
            handoffId: call.handoffId,
            approver: 'manager',
            decision: 'approve',
            arguments: { orderId: '1077', amount: 150, reason: 'partial: scratched' },
            callHash: call.tool!.callHash,
          },
        ],
      });
      const result = await run.result();
      expect(result.output).toMatch(/Your refund for order 1077 is on its way/);
      const paid = new RefundLedger().list().filter((r) => r.idempotencyKey.startsWith(`${run.workflowId}:`));
      expect(paid.map((r) => [r.orderId, r.amount, r.reason])).toEqual([['1077', 150, 'partial: scratched']]);
      // The audit tells it in order: the handoff asked, approved, done; the refund asked, approved, then run.
      const audit = await baton.audit(run.workflowId);
      const steps = audit.events.flatMap((e) =>
        e.kind === 'approval_requested' || e.kind === 'approval_decided' || e.kind === 'handoff'
          ? [e.kind]
          : e.kind === 'tool_call' && e.tool === 'issueRefund'
            ? ['issueRefund ran']
            : [],
      );
      expect(steps).toEqual([
        'approval_requested',
        'approval_decided',
        'handoff',
        'approval_requested',
        'approval_decided',
        'issueRefund ran',
      ]);
      const times = audit.events.map((e) => Date.parse(e.at));
      expect(times).toEqual([...times].sort((a, b) => a - b));
    });
  });
});

describe('support example: issueRefund is idempotent', () => {
  it('refunds once for the same key twice, also through a ledger made afresh', () => {
    const dir = fs.mkdtempSync(path.join(dataDir, 'ledger-'));
    const first = new RefundLedger(dir).issueOnce('wf-1:refunds:1.1:abc', {
      orderId: '1042',
      amount: 59.9,
      reason: 'broken',
    });
    const again = new RefundLedger(dir).issueOnce('wf-1:refunds:1.1:abc', {
      orderId: '1042',
      amount: 59.9,
      reason: 'broken',
    });
    const other = new RefundLedger(dir).issueOnce('wf-1:refunds:2.1:abc', {
      orderId: '1042',
      amount: 59.9,
      reason: 'broken',
    });
    expect(first.repeated).toBe(false);
    expect(again).toEqual({ refund: first.refund, repeated: true });
    expect(other.refund.refundId).not.toBe(first.refund.refundId);
    expect(new RefundLedger(dir).list()).toHaveLength(2);
  });

  it('refunds once when processes race with the same key', async () => {
    const dir = fs.mkdtempSync(path.join(dataDir, 'race-'));
    const script = typescriptCode(
      "const { RefundLedger } = require('./examples/support/ledger.ts');" +
        "const r = new RefundLedger(process.argv[1]).issueOnce('wf-race:refunds:1.1:abc', { orderId: '1042', amount: 59.9, reason: 'race' });" +
        'process.stdout.write(JSON.stringify(r));',
    );
    const outputs = await Promise.all(
      Array.from({ length: 6 }, () => promisify(execFile)(process.execPath, ['-e', script, dir], { cwd: ROOT })),
    );
    const answers = outputs.map(
      (o) => JSON.parse(o.stdout) as { refund: { refundId: string; issuedAt: string }; repeated: boolean },
    );
    expect(new Set(answers.map((a) => `${a.refund.refundId} ${a.refund.issuedAt}`)).size).toBe(1);
    expect(answers.filter((a) => !a.repeated).length).toBeLessThanOrEqual(1);
    expect(new RefundLedger(dir).list()).toHaveLength(1);
  }, 60_000);

  it('refunds once when the worker dies after refunding and another worker process retries the call', async () => {
    const queue = taskQueue();
    const workers: ChildProcess[] = [];
    const startWorker = async (env: Record<string, string>): Promise<ChildProcess> => {
      const child = spawn(process.execPath, [...TYPESCRIPT, path.join(__dirname, 'supportWorker.ts')], {
        cwd: ROOT,
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: server.env.address,
          SUPPORT_TASK_QUEUE: queue,
          BATON_EXAMPLE_DATA: dataDir,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      workers.push(child);
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
        child.once('exit', (code, signal) =>
          reject(new Error(`worker exited before it was ready (${code ?? signal})`)),
        );
      });
      return child;
    };
    try {
      const first = await startWorker({ SUPPORT_CRASH_AFTER_REFUND: '1' });
      const died = new Promise<NodeJS.Signals | null>((resolve) =>
        first.once('exit', (_code, signal) => resolve(signal)),
      );
      const baton = new Baton({ client: server.env.client, taskQueue: queue });
      const run = await baton.start('triage', REFUND_REQUEST, { ...fast, heartbeatTimeout: '2 seconds' });
      await baton.approve(run.workflowId, await waitingHandoff(run), { approver: 'alice' });
      expect(await died).toBe('SIGKILL');

      await startWorker({});
      const result = await run.result();
      expect(result.output).toMatch(/Your refund of \$59\.90 for order 1042/);
      const refunds = new RefundLedger().list().filter((r) => r.idempotencyKey.startsWith(`${run.workflowId}:`));
      expect(refunds).toHaveLength(1);
      expect(refunds[0]!.idempotencyKey).toMatch(new RegExp(`^${run.workflowId}:refunds:\\d+\\.1:[0-9a-f]{8}$`));
      // The call whose worker died was started again on the other worker, under the same key.
      const refundCalls = (await activitiesInHistory(run.handle)).filter(
        (a) => a.name === 'runTool' && JSON.stringify(a.input).includes('issueRefund'),
      );
      expect(refundCalls.map((a) => a.summary)).toEqual([
        'refunds: tool',
        'refunds: tool (started again after a lost worker: 1)',
      ]);
    } finally {
      for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    }
  }, 120_000);
});
