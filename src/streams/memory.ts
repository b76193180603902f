/**
 * The in-process transport: for a worker and its callers in one process (tests, `baton run --team`,
 * `baton chat --team`, a service that runs its own worker). Deltas stay in memory for a while.
 */
import type { StreamEntry, StreamTransport, TextDelta } from './types';

/** Options of {@link InProcessStreams}. */
export interface InProcessStreamsOptions {
  /** Batches kept per topic; older ones are dropped. @default 10000 */
  maxBatches?: number;
  /** How long a topic is kept after its last batch, in milliseconds. @default 3600000 (an hour) */
  retentionMs?: number;
}

/** One stream's batches, held in this process, and the followers waiting for the next. */
interface Topic {
  batches: { seq: number; deltas: TextDelta[] }[];
  next: number;
  touched: number;
  /** Followers waiting for the next batch. */
  wake: Set<() => void>;
}

/** Deltas in this process's memory, read by followers in this process. */
export class InProcessStreams implements StreamTransport {
  readonly #topics = new Map<string, Topic>();
  readonly #maxBatches: number;
  readonly #retentionMs: number;
  #swept = Date.now();

  constructor(options: InProcessStreamsOptions = {}) {
    this.#maxBatches = options.maxBatches ?? 10_000;
    this.#retentionMs = options.retentionMs ?? 3_600_000;
  }

  async publish(topic: string, deltas: TextDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    const t = this.#topic(topic);
    t.batches.push({ seq: t.next++, deltas });
    if (t.batches.length > this.#maxBatches) t.batches.splice(0, t.batches.length - this.#maxBatches);
    t.touched = Date.now();
    for (const wake of [...t.wake]) wake();
    this.#sweep();
  }

  async last(topic: string): Promise<string | undefined> {
    const t = this.#topics.get(topic);
    return t && t.next > 0 ? String(t.next - 1) : undefined;
  }

  async *read(topic: string, cursor: string | undefined, signal: AbortSignal): AsyncIterable<StreamEntry[]> {
    let after = cursor === undefined || !/^\d+$/.test(cursor) ? -1 : Number(cursor);
    while (!signal.aborted) {
      const t = this.#topic(topic);
      const fresh = t.batches.filter((b) => b.seq > after);
      if (fresh.length > 0) {
        after = fresh.at(-1)!.seq;
        yield fresh.flatMap((b) => b.deltas.map((delta) => ({ cursor: String(b.seq), delta })));
        continue;
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          t.wake.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        t.wake.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  async close(): Promise<void> {
    for (const t of this.#topics.values()) for (const wake of [...t.wake]) wake();
  }

  #topic(name: string): Topic {
    let t = this.#topics.get(name);
    if (!t) this.#topics.set(name, (t = { batches: [], next: 0, touched: Date.now(), wake: new Set() }));
    return t;
  }

  /** Drop topics nobody wrote to within the retention and nobody reads. */
  #sweep(): void {
    const now = Date.now();
    if (now - this.#swept < Math.min(60_000, this.#retentionMs)) return;
    this.#swept = now;
    for (const [name, t] of this.#topics)
      if (t.wake.size === 0 && now - t.touched > this.#retentionMs) this.#topics.delete(name);
  }
}

const SHARED = Symbol.for('baton-agents.inProcessStreams');

/**
 * This process's in-process transport: the one a worker publishes to and a client reads from when
 * neither was given another, shared by every copy of baton loaded in the process.
 */
export function inProcessStreams(): InProcessStreams {
  const holder = globalThis as { [SHARED]?: InProcessStreams };
  return (holder[SHARED] ??= new InProcessStreams());
}
