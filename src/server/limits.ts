/**
 * Sizes at the edge: a request body over the service's limit is refused while it is read (never
 * buffered past the limit, with or without a Content-Length), and what a request would send to
 * Temporal is measured as JSON and refused over Temporal's payload limit, before a workflow starts
 * or a message is sent.
 */
import type { Client } from '@temporalio/client';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HttpProblem } from './problems';
import { isRecord } from '../common/check';
import { InputTooLargeError } from '../common/errors';
import { shapeOver } from '../common/jsonShape';

/** The default request body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Temporal's default blob size limit (`limit.blobSize.error`), when the namespace does not say its own. */
export const TEMPORAL_BLOB_LIMIT_BYTES = 2 * 1024 * 1024;

/** What the data converter and codecs add to a payload's JSON (metadata, an encryption key id, nonce and tag). */
const PAYLOAD_OVERHEAD_BYTES = 1024;

const size = (bytes: number) => `${bytes.toLocaleString('en-US')} bytes`;

/** Middleware: 413 for a body over `maxBytes`, read only up to the limit. */
export function bodySizeLimit(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) => {
      const declared = Number(c.req.header('content-length'));
      const what =
        Number.isFinite(declared) && declared > maxBytes && !c.req.header('transfer-encoding')
          ? `is ${size(declared)}`
          : 'is larger';
      // The rest of the body is not read: the connection closes after the answer rather than carry another request.
      throw new HttpProblem(
        413,
        'Request body too large',
        `The request body ${what}; the service takes bodies of at most ${size(maxBytes)}.`,
        undefined,
        { connection: 'close' },
      );
    },
  });
}

/**
 * The largest JSON the service sends to Temporal in one request: the option when given, else the
 * namespace's blob size limit (read once from Temporal) less what the data converter adds.
 */
export class PayloadLimit {
  private known?: number;
  private reading?: Promise<number>;

  constructor(
    private readonly client: Client,
    private readonly configured?: number,
  ) {
    if (configured !== undefined && !(Number.isInteger(configured) && configured > 0))
      throw new Error(`payloadLimitBytes must be a whole number of bytes above 0, got ${configured}`);
  }

  /** The limit in bytes. */
  async bytes(): Promise<number> {
    if (this.configured !== undefined) return this.configured;
    if (this.known !== undefined) return this.known;
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  /**
   * 413 when `value` as JSON is over the limit; `what` names it in the answer ("the run input").
   * Nothing has been sent when this throws.
   */
  async check(what: string, value: unknown): Promise<void> {
    // Too deep or too wide to measure (or to take anywhere): 413 naming the field and the limit, not a failure of the service.
    const shape = isRecord(value)
      ? Object.entries(value).flatMap(([field, v]) => shapeOver(field, v))
      : shapeOver(what, value);
    if (shape.length > 0) throw new InputTooLargeError(shape);
    const bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
    const limit = await this.bytes();
    if (bytes <= limit) return;
    throw new HttpProblem(
      413,
      'Too large for Temporal',
      `${what} is ${size(bytes)} as JSON; Temporal takes at most ${size(limit)} in one payload (${this.configured !== undefined ? "the service's payloadLimitBytes" : "the namespace's blob size limit, less what baton's data converter adds"}). Nothing was sent.`,
    );
  }

  private async read(): Promise<number> {
    let blob = TEMPORAL_BLOB_LIMIT_BYTES;
    try {
      const { namespaceInfo } = await this.client.workflowService.describeNamespace({
        namespace: this.client.options.namespace,
      });
      const reported = Number(namespaceInfo?.limits?.blobSizeLimitError ?? 0);
      if (reported > 0) blob = reported;
      this.known = blob - PAYLOAD_OVERHEAD_BYTES;
    } catch {
      // Temporal unreachable or too old to say: Temporal's default, read again on the next request.
    }
    return blob - PAYLOAD_OVERHEAD_BYTES;
  }
}
