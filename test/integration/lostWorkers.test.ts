import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Baton, createWorker, defineAgent, defineTool, scripted, Team, ToolExecutionError } from '../../src';
import { activitiesInHistory } from '../helpers/history';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { team, type ToolStart } from './lostWorkers/team';
import { TYPESCRIPT } from '../helpers/typescript';

const server = useTemporalServer();
const root = path.resolve(__dirname, '../..');
const fastRetry = { initialInterval: '100 ms', maximumInterval: '200 ms' };

/** The attempts worker processes started, in order, and a way to wait for the next one. */
class Starts {
  private readonly queue: { worker: ActivityWorker; activity: string }[] = [];
  private wake = () => {};

  push(worker: ActivityWorker, activity: string): void {
    this.queue.push({ worker, activity });
    this.wake();
  }

  /** The worker on which the next attempt of `activity` started. */
  async next(activity: string): Promise<ActivityWorker> {
    for (;;) {
      const i = this.queue.findIndex((s) => s.activity === activity);
      if (i >= 0) return this.queue.splice(i, 1)[0]!.worker;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

/** A process running the team's activities, reporting each attempt it starts to `starts`. */
class ActivityWorker {
  private readonly child: ChildProcess;
  readonly ready: Promise<void>;

  constructor(queue: string, log: string, starts: Starts) {
    this.child = spawn(process.execPath, [...TYPESCRIPT, path.join(__dirname, 'lostWorkers/activityWorker.ts')], {
      cwd: root,
      env: { ...process.env, TEMPORAL_ADDRESS: server.env.address, LOST_WORKER_QUEUE: queue, LOST_WORKER_LOG: log },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    this.ready = new Promise((resolve, reject) => {
      this.child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const lines = output.split('\n');
        output = lines.pop()!;
        for (const line of lines) {
          if (line === 'ready') resolve();
          if (line.startsWith('start ')) starts.push(this, line.split(' ')[1]!);
        }
      });
      this.child.once('exit', (code, signal) =>
        reject(new Error(`the activity worker exited before it was ready (${code ?? signal})`)),
      );
    });
  }

  /** SIGKILL it and wait until it is gone. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const gone = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await gone;
  }
}

describe('lost workers', () => {
  it('do not use up a call: model and tool calls whose worker is killed more often than the retry budget allows still complete', async () => {
    const queue = taskQueue();
    const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-lost-')), 'tool-starts.jsonl');
    // The workflows run here; every model and tool call runs in a worker process that gets killed.
    const workflows = await createWorker({
      team,
      connection: server.env.nativeConnection,
      taskQueue: queue,
      worker: { enableNonLocalActivities: false },
    });
    const starts = new Starts();
    const workers: ActivityWorker[] = [];
    const startWorker = () => {
      const w = new ActivityWorker(queue, log, starts);
      workers.push(w);
      return w.ready;
    };
    try {
      // Three processes: while one is killed and replaced, the others take the call.
      await Promise.all([startWorker(), startWorker(), startWorker()]);
      const outcome = await workflows.runUntil(async () => {
        const baton = new Baton({ client: server.env.client, taskQueue: queue });
        const run = await baton.start('clerk', 'Please file case 42.', {
          heartbeatTimeout: '1 second',
          retry: { ...fastRetry, maximumAttempts: 1 },
        });
        // One attempt is the budget, and the worker of each call dies twice.
        const ended = run.result().then(
          () => undefined,
          () => undefined,
        );
        for (const activity of ['callModel', 'callModel', 'runTool', 'runTool']) {
          const worker = await Promise.race([starts.next(activity), ended]);
          if (!worker) break;
          // Inside the call, past the heartbeat with the tool's progress (the workers send heartbeats within 0.1 s).
          await new Promise((resolve) => setTimeout(resolve, 500));
          await worker.kill();
          startWorker().catch(() => undefined);
        }
        return { result: await run.result().catch((e: unknown) => e), run, audit: await baton.audit(run.workflowId) };
      });
      expect(outcome.result).toMatchObject({ output: 'The case is filed.' });

      // One tool call, started three times under one idempotency key; each restart picked up the
      // progress the lost start had heartbeated.
      const toolStarts = fs
        .readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as ToolStart);
      expect(toolStarts).toHaveLength(3);
      expect(new Set(toolStarts.map((s) => s.key)).size).toBe(1);
      expect(toolStarts.map((s) => s.resumedFrom)).toEqual([
        null,
        { progress: 'filing 42' },
        { progress: 'filing 42' },
      ]);

      // The audit shows each call once, with its attempts and the restarts after lost workers.
      const calls = outcome.audit.events.filter((e) => e.kind === 'model_turn' || e.kind === 'tool_call');
      expect(calls.map((e) => [e.kind, e.execution])).toEqual([
        ['model_turn', expect.objectContaining({ status: 'completed', attempts: 3, lostWorkers: 2 })],
        ['tool_call', expect.objectContaining({ status: 'completed', attempts: 3, lostWorkers: 2 })],
        ['model_turn', expect.objectContaining({ status: 'completed', attempts: 1 })],
      ]);
      // History: each lost start timed out on its heartbeats, and the next start says it is one.
      const activities = (await activitiesInHistory(outcome.run.handle)).filter((a) => a.name === 'runTool');
      expect(activities.map((a) => a.summary)).toEqual([
        'clerk: tool',
        'clerk: tool (started again after a lost worker: 1)',
        'clerk: tool (started again after a lost worker: 2)',
      ]);
    } finally {
      for (const w of workers) await w.kill();
    }
  }, 120_000);

  it('leave errors their own budget: a tool that throws still fails after its retry attempts', async () => {
    let calls = 0;
    const broken = defineTool({
      name: 'fileCase',
      description: 'File the case',
      parameters: z.object({ id: z.string() }),
      execute: () => {
        calls += 1;
        throw new Error('the filing system is down');
      },
    });
    const clerk = new Team([
      defineAgent({
        id: 'clerk',
        instructions: 'File it.',
        model: scripted([{ toolCalls: [{ name: 'fileCase', arguments: { id: '42' } }] }]),
        tools: [broken],
      }),
    ]);
    const error = await withWorker(server.env, clerk, (baton) =>
      baton
        .run('clerk', 'file 42', { retry: { ...fastRetry, maximumAttempts: 3 }, lostWorkerRetries: 5 })
        .catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(ToolExecutionError);
    expect((error as Error).message).toContain('the filing system is down');
    expect(calls).toBe(3);
  });
});
