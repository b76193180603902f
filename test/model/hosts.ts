/**
 * The harness's worker processes (./worker.ts), by slot: started, told what to serve, SIGKILLed
 * and started again (serving what they served); and the puppet model's calls they report, each
 * answered by the harness once and, when a call starts again, with the same answer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { FromWorker, PuppetAnswer, PuppetCall, ServedWorker, ToWorker } from './protocol';
import { TYPESCRIPT } from '../helpers/typescript';

interface Slot {
  child?: ChildProcess;
  generation: number;
  ready: boolean;
  /** What it serves (again after a restart). */
  serving: ServedWorker[];
  /** Activities in flight, by `workflowId activityId`. */
  inFlight: Map<string, { workflowId: string; activity: string }>;
}

/** A SIGKILL the pool delivered. */
export interface HostKill {
  at: number;
  slot: number;
  /** Activities the process had in flight. */
  inFlight: string[];
}

const WORKER = path.join(__dirname, 'worker.ts');

/** Worker processes and the puppet calls they wait in. */
export class Hosts {
  readonly kills: HostKill[] = [];
  /** Exits the harness did not cause. */
  readonly crashes: { at: number; slot: number; code: number | null; signal: string | null }[] = [];
  private readonly slots: Slot[];
  private stopping = false;
  /** Calls waiting for an answer, by key, with the slot that waits and its attempts waiting there. */
  private readonly open = new Map<string, PuppetCall & { slot: number; waiting: Set<number> }>();
  /** Every answer given, by key. */
  private readonly answers = new Map<string, PuppetAnswer>();
  /** How many times an attempt of a call began to wait while an earlier attempt of it still waited in the same process. */
  overlapped = 0;
  /** Calls stopped before they answered (an interrupt), by key. */
  readonly stopped = new Set<string>();
  /** Steps refused for a team the worker lacks, by workflow id: the first and the last. */
  private readonly refusals = new Map<string, { first: number; last: number }>();

  constructor(
    size: number,
    private readonly env: Record<string, string>,
    private readonly logDir: string,
  ) {
    this.slots = Array.from({ length: size }, () => ({
      generation: 0,
      ready: false,
      serving: [],
      inFlight: new Map(),
    }));
  }

  async start(): Promise<void> {
    fs.mkdirSync(this.logDir, { recursive: true });
    await Promise.all(this.slots.map((_, i) => this.spawn(i)));
  }

  get size(): number {
    return this.slots.length;
  }

  /** Slots whose process is up. */
  live(): number[] {
    return this.slots.flatMap((s, i) => (s.ready ? [i] : []));
  }

  /** Serve `workers` in every process (now, and after each restart); resolves once every live process serves them. */
  async serve(workers: ServedWorker[], slots: number[] = this.slots.map((_, i) => i)): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const i of slots) {
      const s = this.slots[i]!;
      s.serving = workers;
      if (s.ready && s.child) waits.push(this.untilServing(s.child, workers));
    }
    await Promise.all(waits);
  }

  /** What slot `i` serves. */
  servingOf(i: number): ServedWorker[] {
    return this.slots[i]?.serving ?? [];
  }

  /** Whether a step of `workflowId` (or of a specialist under it) was refused for its team in the last `ms`. */
  refusedWithin(workflowId: string, ms: number): boolean {
    for (const [id, r] of this.refusals) if (id.startsWith(workflowId) && Date.now() - r.last < ms) return true;
    return false;
  }

  /** The calls waiting for an answer. */
  calls(): PuppetCall[] {
    return [...this.open.values()].map(({ slot: _s, waiting: _w, ...call }) => call);
  }

  /**
   * Whether an activity of `workflowId` is in flight besides the puppet calls waiting for their
   * answers, or its steps are being refused for a team (tried again every second or so, until
   * `teamMismatchTimeout`; for at most 15 s, so a chain that waits longer does not hold every step).
   */
  busy(workflowId: string): boolean {
    const refused = this.refusals.get(workflowId);
    if (refused && Date.now() - refused.last < 2500 && Date.now() - refused.first < 15_000) return true;
    let models = 0;
    for (const s of this.slots) {
      for (const a of s.inFlight.values()) {
        if (a.workflowId !== workflowId) continue;
        if (a.activity !== 'callModel') return true;
        models++;
      }
    }
    return models > [...this.open.values()].reduce((n, c) => n + (c.workflowId === workflowId ? c.waiting.size : 0), 0);
  }

  /** The slots whose process runs an `activity` of `workflowId` now. */
  running(workflowId: string, activity: string): number[] {
    return this.slots.flatMap((s, i) =>
      [...s.inFlight.values()].some((a) => a.workflowId === workflowId && a.activity === activity) ? [i] : [],
    );
  }

  /** Answer the call `key` (and, if it starts again, again with this). */
  answer(key: string, answer: PuppetAnswer): void {
    this.answers.set(key, answer);
    const call = this.open.get(key);
    this.open.delete(key);
    if (call) this.post(call.slot, { type: 'answer', key, answer });
  }

  /** The answer given to `key`. */
  answerOf(key: string): PuppetAnswer | undefined {
    return this.answers.get(key);
  }

  /** SIGKILL the process in `slot`; it is started again after `restartMs`. */
  kill(slot: number): HostKill | undefined {
    const s = this.slots[slot];
    if (!s?.child || !s.ready) return undefined;
    const kill: HostKill = { at: Date.now(), slot, inFlight: [...s.inFlight.values()].map((a) => a.activity) };
    this.kills.push(kill);
    s.ready = false;
    this.dropCallsOf(slot);
    s.child.kill('SIGKILL');
    return kill;
  }

  /** Wait until every slot's process is up and serving. */
  async untilAllUp(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.slots.some((s) => !s.ready)) {
      if (Date.now() > deadline) throw new Error('worker processes did not come back');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

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

  private post(slot: number, m: ToWorker): void {
    const child = this.slots[slot]?.child;
    if (child?.connected) child.send(m, () => undefined);
  }

  private dropCallsOf(slot: number): void {
    for (const [key, c] of this.open) if (c.slot === slot) this.open.delete(key);
  }

  private untilServing(child: ChildProcess, workers: ServedWorker[]): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        child.off('message', onMessage);
        child.off('exit', done);
        resolve();
      };
      const onMessage = (m: FromWorker) => {
        if (m.type === 'serving') done();
      };
      child.on('message', onMessage);
      child.once('exit', done);
      child.send({ type: 'serve', workers } satisfies ToWorker, () => undefined);
    });
  }

  private spawn(slot: number): Promise<void> {
    const s = this.slots[slot]!;
    s.generation += 1;
    s.inFlight = new Map();
    const identity = `model-w${slot}.${s.generation}`;
    const log = fs.openSync(path.join(this.logDir, `${identity}.log`), 'a');
    const child = spawn(process.execPath, [...TYPESCRIPT, WORKER], {
      env: { ...process.env, ...this.env, MODEL_IDENTITY: identity },
      stdio: ['ignore', log, log, 'ipc'],
    });
    fs.closeSync(log);
    s.child = child;
    return new Promise<void>((resolve) => {
      child.on('message', (m: FromWorker) => {
        if (s.child !== child) return;
        if (m.type === 'ready') {
          void this.untilServing(child, s.serving).then(() => {
            if (s.child === child && child.exitCode === null) s.ready = true;
            resolve();
          });
        } else if (m.type === 'call') {
          const { type: _t, ...call } = m;
          const given = this.answers.get(m.key);
          const there = this.open.get(m.key);
          if (given) this.post(slot, { type: 'answer', key: m.key, answer: given });
          else if (there?.slot === slot) {
            there.waiting.add(m.attempt);
            this.overlapped++;
          } else this.open.set(m.key, { ...call, slot, waiting: new Set([m.attempt]) });
        } else if (m.type === 'call_ended') {
          // An attempt the server gave up on may stop after the next attempt of its call began to wait here.
          const there = this.open.get(m.key);
          if (there?.slot === slot && there.waiting.delete(m.attempt) && there.waiting.size === 0)
            this.open.delete(m.key);
          const goesOn = there?.slot === slot && there.waiting.size > 0;
          if (m.how === 'stopped' && !goesOn) this.stopped.add(m.key);
        } else if (m.type === 'activity') {
          const id = `${m.workflowId} ${m.activityId}`;
          if (m.phase === 'start') s.inFlight.set(id, { workflowId: m.workflowId, activity: m.activity });
          else s.inFlight.delete(id);
          if (m.failure === 'TeamMismatchError')
            this.refusals.set(m.workflowId, {
              first: this.refusals.get(m.workflowId)?.first ?? Date.now(),
              last: Date.now(),
            });
        }
      });
      child.once('exit', (code, signal) => {
        if (s.child === child) {
          s.ready = false;
          this.dropCallsOf(slot);
        }
        const killed = signal === 'SIGKILL' && this.kills.some((k) => k.slot === slot && k.at >= 0);
        if (!killed && !this.stopping) this.crashes.push({ at: Date.now(), slot, code, signal });
        resolve();
        if (!this.stopping && s.child === child) setTimeout(() => void (this.stopping || this.spawn(slot)), 300);
      });
    });
  }
}
