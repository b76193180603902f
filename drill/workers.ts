/**
 * The drill's worker processes: started, SIGKILLed and restarted by slot, with what each one has
 * in flight (from the reports of drill/worker.ts) and every activity attempt that started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { WorkerReport } from './worker';

/** An activity attempt as a worker reported it. */
export interface Attempt {
  workflowId: string;
  activityId: string;
  activity: string;
  /** The tool of a `runTool` attempt. */
  tool?: string;
  attempt: number;
  at: number;
  identity: string;
}

/** A SIGKILL the pool delivered. */
export interface Kill {
  at: number;
  slot: number;
  identity: string;
  phase: string;
  /** Attempts the worker had started and not finished when it died. */
  inFlight: Attempt[];
}

/** Options of {@link WorkerPool}. */
export interface WorkerPoolOptions {
  size: number;
  address: string;
  taskQueue: string;
  /** Environment of every worker (the drill's `DRILL_*` settings). */
  env: Record<string, string>;
  /** Where each worker's stderr goes. */
  logDir: string;
  /** Delay before a killed or crashed worker is started again. @default 500 */
  restartDelayMs?: number;
}

interface Slot {
  child?: ChildProcess;
  identity: string;
  generation: number;
  ready: boolean;
  inFlight: Map<string, Attempt>;
}

const WORKER = path.join(__dirname, 'worker.ts');

/** Worker child processes by slot. */
export class WorkerPool {
  /** Every attempt any worker started, in the order the reports arrived. */
  readonly starts: Attempt[] = [];
  /** Every kill, in order. */
  readonly kills: Kill[] = [];
  /** Exits the pool did not cause (a worker that gave up, e.g. while the server was down). */
  readonly crashes: { at: number; identity: string; code: number | null; signal: string | null }[] = [];
  private readonly slots: Slot[];
  private stopping = false;
  private readonly handoffListeners: ((slot: number) => void)[] = [];

  constructor(private readonly options: WorkerPoolOptions) {
    this.slots = Array.from({ length: options.size }, () => ({
      identity: '',
      generation: 0,
      ready: false,
      inFlight: new Map(),
    }));
  }

  /** Start every worker and wait until each polls. */
  async start(): Promise<void> {
    fs.mkdirSync(this.options.logDir, { recursive: true });
    await Promise.all(this.slots.map((_, i) => this.spawn(i)));
  }

  /** Number of slots. */
  get size(): number {
    return this.slots.length;
  }

  /** Slots whose worker is up. */
  liveSlots(): number[] {
    return this.slots.flatMap((s, i) => (s.ready ? [i] : []));
  }

  /** The identity of the worker now in `slot`. */
  identityOf(slot: number): string | undefined {
    return this.slots[slot]?.identity;
  }

  /** What the worker in `slot` has in flight. */
  inFlight(slot: number): Attempt[] {
    return [...(this.slots[slot]?.inFlight.values() ?? [])];
  }

  /** Call `listener` when a worker finishes a model call that asked for a handoff. */
  onHandoffAnswered(listener: (slot: number) => void): () => void {
    this.handoffListeners.push(listener);
    return () => {
      const i = this.handoffListeners.indexOf(listener);
      if (i >= 0) this.handoffListeners.splice(i, 1);
    };
  }

  /** SIGKILL the worker in `slot` (it is started again after the restart delay). */
  kill(slot: number, phase: string): Kill | undefined {
    const s = this.slots[slot];
    if (!s?.child || !s.ready) return undefined;
    const kill: Kill = { at: Date.now(), slot, identity: s.identity, phase, inFlight: this.inFlight(slot) };
    this.kills.push(kill);
    s.ready = false;
    s.child.kill('SIGKILL');
    return kill;
  }

  /** Kill every worker for good. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      this.slots.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (!s.child || s.child.exitCode !== null || s.child.signalCode !== null) return resolve();
            s.child.once('exit', () => resolve());
            s.child.kill('SIGKILL');
          }),
      ),
    );
  }

  private spawn(slot: number): Promise<void> {
    const s = this.slots[slot]!;
    s.generation += 1;
    s.identity = `drill-w${slot}.${s.generation}`;
    s.inFlight = new Map();
    const log = fs.openSync(path.join(this.options.logDir, `${s.identity}.log`), 'a');
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', WORKER], {
      env: {
        ...process.env,
        ...this.options.env,
        TEMPORAL_ADDRESS: this.options.address,
        DRILL_TASK_QUEUE: this.options.taskQueue,
        DRILL_IDENTITY: s.identity,
      },
      stdio: ['ignore', log, log, 'ipc'],
    });
    fs.closeSync(log);
    s.child = child;
    const identity = s.identity;
    return new Promise<void>((resolve) => {
      child.on('message', (m: WorkerReport) => {
        if (m.type === 'ready') {
          s.ready = true;
          return resolve();
        }
        const attempt: Attempt = {
          workflowId: m.workflowId,
          activityId: m.activityId,
          activity: m.activity,
          ...(m.tool ? { tool: m.tool } : {}),
          attempt: m.attempt,
          at: m.at,
          identity,
        };
        const id = `${m.workflowId}/${m.activityId}`;
        if (m.type === 'start') {
          this.starts.push(attempt);
          if (s.child === child) s.inFlight.set(id, attempt);
        } else {
          if (s.child === child) s.inFlight.delete(id);
          if (m.handoff) for (const l of [...this.handoffListeners]) l(slot);
        }
      });
      child.once('exit', (code, signal) => {
        if (s.child === child) s.ready = false;
        const killedByUs = this.kills.some((k) => k.identity === identity);
        if (!killedByUs && !this.stopping) this.crashes.push({ at: Date.now(), identity, code, signal });
        resolve();
        if (!this.stopping)
          setTimeout(() => void (this.stopping || this.spawn(slot)), this.options.restartDelayMs ?? 500);
      });
    });
  }
}
