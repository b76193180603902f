/**
 * Where the SIEM stream goes: a file of JSON lines ({@link FileSiemSink}) a log shipper tails, or an
 * HTTP endpoint ({@link HttpSiemSink}) that takes CloudEvents in batch mode. Each archived chain's
 * events are written as one batch, once: the file keeps a cursor beside it (the length the file
 * had before the last batch, and that batch's chain), so a batch cut short by a crash is cut off
 * and written again whole, and a batch written before a crash is not written again. The archiver
 * receipts each chain's batch in the archive once it is written (`siem-receipts/…`), so no chain's
 * events are sent twice, whatever restarts; each event's `id` lets an HTTP receiver drop the one
 * delivery a crash between its answer and the receipt repeats.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SiemEvent } from './events';

/** A destination of the SIEM stream. */
export interface SiemSink {
  /** Where it goes, for messages. */
  readonly location: string;
  /** Write the events of the chain archived under `chainKey`, unless they were; resolves to how many were written now. */
  write(chainKey: string, events: SiemEvent[]): Promise<number>;
}

interface FileCursor {
  /** The file's length before the last batch. */
  offset: number;
  /** The chain of the last batch. */
  chain: string;
  /** The file's length after it. */
  end: number;
}

/** The stream as a file of JSON lines; its cursor is `<file>.cursor`. One archive worker writes a file. */
export class FileSiemSink implements SiemSink {
  readonly location: string;
  private readonly cursorFile: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(file: string) {
    this.location = path.resolve(file);
    this.cursorFile = `${this.location}.cursor`;
  }

  write(chainKey: string, events: SiemEvent[]): Promise<number> {
    // One batch at a time, in this process.
    const next = this.queue.then(() => this.append(chainKey, events));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async append(chainKey: string, events: SiemEvent[]): Promise<number> {
    await fs.promises.mkdir(path.dirname(this.location), { recursive: true });
    const cursor = this.readCursor();
    if (cursor?.chain === chainKey) return 0;
    const handle = await fs.promises.open(this.location, fs.constants.O_RDWR | fs.constants.O_CREAT);
    try {
      // What a crash left after the last recorded batch is the start of a batch not recorded: cut it off.
      const start = cursor?.end ?? 0;
      const { size } = await handle.stat();
      if (size < start)
        throw new Error(
          `the SIEM stream ${this.location} is shorter (${size} bytes) than its cursor says (${start}): it was truncated or replaced; move ${this.cursorFile} away to start it again`,
        );
      if (size > start) await handle.truncate(start);
      const body = Buffer.from(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
      await handle.write(body, 0, body.length, start);
      await handle.sync();
      this.writeCursor({ offset: start, chain: chainKey, end: start + body.length });
      return events.length;
    } finally {
      await handle.close();
    }
  }

  private readCursor(): FileCursor | undefined {
    try {
      return JSON.parse(fs.readFileSync(this.cursorFile, 'utf8')) as FileCursor;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new Error(
        `the SIEM stream's cursor ${this.cursorFile} is unreadable (${(err as Error).message}): fix or remove it`,
      );
    }
  }

  private writeCursor(cursor: FileCursor): void {
    const temp = `${this.cursorFile}.tmp`;
    const fd = fs.openSync(temp, 'w');
    try {
      fs.writeSync(fd, JSON.stringify(cursor));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, this.cursorFile);
  }
}

/** Options of {@link HttpSiemSink}. */
export interface HttpSiemSinkOptions {
  /** Headers sent with each batch, e.g. `{ authorization: 'Bearer …' }`. */
  headers?: Record<string, string>;
  /** How long a delivery may take, in ms. @default 30000 */
  timeoutMs?: number;
}

/**
 * The stream POSTed to an HTTP endpoint: each chain's events as one CloudEvents batch
 * (`application/cloudevents-batch+json`, a JSON array); any answer but 2xx is a failed delivery,
 * tried again.
 */
export class HttpSiemSink implements SiemSink {
  constructor(
    readonly location: string,
    private readonly options: HttpSiemSinkOptions = {},
  ) {
    const url = new URL(location);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`a SIEM endpoint is an http(s) URL, got ${location}`);
  }

  async write(_chainKey: string, events: SiemEvent[]): Promise<number> {
    const response = await fetch(this.location, {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents-batch+json', ...this.options.headers },
      body: JSON.stringify(events),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
    });
    if (!response.ok)
      throw new Error(
        `the SIEM endpoint ${this.location} answered ${response.status} ${response.statusText}: ${(await response.text()).slice(0, 300)}`,
      );
    return events.length;
  }
}
