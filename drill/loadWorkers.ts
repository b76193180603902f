/**
 * The load drill's worker processes (drill/loadWorker.ts): started together, their memory and
 * cache samples kept, their peak RSS read from the kernel (`VmHWM`) before they are stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { LoadWorkerReport } from './loadWorker';

type Sample = Extract<LoadWorkerReport, { type: 'sample' }>;

/** One worker process and what it reported. */
export interface LoadWorker {
  identity: string;
  child: ChildProcess;
  maxCachedWorkflows: number;
  samples: Sample[];
}

/** Peak resident set size of a process in bytes (`VmHWM` of /proc/<pid>/status); undefined off Linux. */
export function peakRss(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Options of {@link LoadWorkers}. */
export interface LoadWorkersOptions {
  count: number;
  address: string;
  taskQueue: string;
  /** The workers' `maxCachedWorkflows`; the SDK's default when undefined. */
  maxCachedWorkflows?: number;
  logDir: string;
  name: string;
}

/** A group of load workers on one task queue. */
export class LoadWorkers {
  readonly workers: LoadWorker[] = [];

  private constructor(private readonly options: LoadWorkersOptions) {}

  /** Start `count` workers and wait until each polls. */
  static async start(options: LoadWorkersOptions): Promise<LoadWorkers> {
    const group = new LoadWorkers(options);
    fs.mkdirSync(options.logDir, { recursive: true });
    await Promise.all(Array.from({ length: options.count }, (_, i) => group.spawn(i)));
    return group;
  }

  private spawn(i: number): Promise<void> {
    const identity = `${this.options.name}-w${i}`;
    const log = fs.openSync(path.join(this.options.logDir, `${identity}.log`), 'a');
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', path.join(__dirname, 'loadWorker.ts')], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: this.options.address,
        DRILL_TASK_QUEUE: this.options.taskQueue,
        DRILL_IDENTITY: identity,
        ...(this.options.maxCachedWorkflows === undefined
          ? {}
          : { LOAD_MAX_CACHED_WORKFLOWS: String(this.options.maxCachedWorkflows) }),
      },
      stdio: ['ignore', log, log, 'ipc'],
    });
    fs.closeSync(log);
    const worker: LoadWorker = { identity, child, maxCachedWorkflows: 0, samples: [] };
    this.workers.push(worker);
    return new Promise<void>((resolve, reject) => {
      child.on('message', (m: LoadWorkerReport) => {
        if (m.type === 'ready') {
          worker.maxCachedWorkflows = m.maxCachedWorkflows;
          resolve();
        } else worker.samples.push(m);
      });
      child.once('exit', (code, signal) =>
        reject(
          new Error(
            `load worker ${identity} exited (${signal ?? code}) before it was ready; see ${this.options.logDir}`,
          ),
        ),
      );
    });
  }

  /** The latest sample of each worker. */
  latest(): (Sample | undefined)[] {
    return this.workers.map((w) => w.samples.at(-1));
  }

  /** Each worker's RSS (bytes) right now, from its latest sample. */
  rssNow(): number[] {
    return this.latest().map((s) => s?.rss ?? 0);
  }

  /** Each worker's peak RSS so far: the kernel's high-water mark, or the highest sample. */
  peaks(): number[] {
    return this.workers.map((w) => peakRss(w.child.pid) ?? Math.max(0, ...w.samples.map((s) => s.rss)));
  }

  /** The most workflows any one worker held in its cache, over the samples since `since`. */
  maxCached(since = 0): number {
    return Math.max(0, ...this.workers.flatMap((w) => w.samples.filter((s) => s.at >= since).map((s) => s.cached)));
  }

  /** Highest RSS sampled in a worker since `since`. */
  maxSampledRss(since = 0): number {
    return Math.max(0, ...this.workers.flatMap((w) => w.samples.filter((s) => s.at >= since).map((s) => s.rss)));
  }

  /** Stop every worker (SIGTERM, then SIGKILL after 10 s). */
  async stop(): Promise<void> {
    await Promise.all(
      this.workers.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => (clearTimeout(force), resolve()));
            child.kill('SIGTERM');
          }),
      ),
    );
  }
}
