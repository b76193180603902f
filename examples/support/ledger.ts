/**
 * The refund ledger: the shop's record of money paid back, kept on disk so that an idempotency key
 * outlives the worker that first used it. It stands in for a payment provider that deduplicates by
 * idempotency key, the way a real `issueRefund` would be protected.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One refund, as the ledger records it. */
export interface Refund {
  refundId: string;
  orderId: string;
  amount: number;
  reason: string;
  /** The tool call's idempotency key: one refund per key. */
  idempotencyKey: string;
  issuedAt: string;
}

/** The ledger's directory: `BATON_EXAMPLE_DATA`, or `baton-example` under the OS temp dir. */
export function exampleDataDir(): string {
  return process.env.BATON_EXAMPLE_DATA ?? path.join(os.tmpdir(), 'baton-example');
}

/**
 * Refunds by idempotency key, one JSON file per key in `<dir>/refunds/`. Every call reads the disk,
 * so a ledger object holds no state of its own: a new process, or a new ledger on the same
 * directory, sees every refund issued before.
 * @example
 * const { refund, repeated } = new RefundLedger().issueOnce(idempotencyKey, { orderId, amount, reason });
 */
export class RefundLedger {
  /** Where the refunds are kept. */
  readonly dir: string;

  /** @param dir @default {@link exampleDataDir} */
  constructor(dir: string = exampleDataDir()) {
    this.dir = path.join(dir, 'refunds');
  }

  /** The refund issued under `idempotencyKey`, if any. */
  get(idempotencyKey: string): Refund | undefined {
    try {
      return JSON.parse(fs.readFileSync(this.fileOf(idempotencyKey), 'utf8')) as Refund;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /**
   * Issue a refund once per key: the refund already recorded under `idempotencyKey` (`repeated:
   * true`), or a new one.
   */
  issueOnce(
    idempotencyKey: string,
    refund: Pick<Refund, 'orderId' | 'amount' | 'reason'>,
  ): { refund: Refund; repeated: boolean } {
    const earlier = this.get(idempotencyKey);
    if (earlier) return { refund: earlier, repeated: true };
    const issued: Refund = {
      refundId: `R-${refund.orderId}-${digest(idempotencyKey).slice(0, 8)}`,
      ...refund,
      idempotencyKey,
      issuedAt: new Date().toISOString(),
    };
    fs.mkdirSync(this.dir, { recursive: true });
    const file = this.fileOf(idempotencyKey);
    const staged = `${file}.${process.pid}.${randomUUID()}.tmp`;
    try {
      // Written and flushed under a temporary name first, so a crash mid-write never leaves a
      // half-written refund under the key's name.
      const fd = fs.openSync(staged, 'wx');
      try {
        fs.writeSync(fd, JSON.stringify(issued));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      // Published with link(), not rename(): both are atomic, but rename() would silently replace a
      // refund another attempt of the same call published meanwhile (a worker presumed dead that is
      // still running), while link() refuses, and the first refund stays the only one.
      fs.linkSync(staged, file);
      return { refund: issued, repeated: false };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return { refund: this.get(idempotencyKey)!, repeated: true };
    } finally {
      fs.rmSync(staged, { force: true });
    }
  }

  /** Every refund in the ledger. */
  list(): Refund[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    return names
      .filter((n) => n.endsWith('.json'))
      .map((n) => JSON.parse(fs.readFileSync(path.join(this.dir, n), 'utf8')) as Refund);
  }

  private fileOf(idempotencyKey: string): string {
    // Keys hold workflow ids, which may contain characters a file name cannot.
    return path.join(this.dir, `${digest(idempotencyKey)}.json`);
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
