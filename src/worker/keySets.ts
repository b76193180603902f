/**
 * The team's published key sets (`jwks`), as a worker holds them: fetched when the worker starts (a
 * set it cannot fetch or use stops the start with {@link KeySetError}), fetched again when a new
 * chain's snapshot finds its copy older than the set's `refreshSeconds`, and recorded with each
 * snapshot. A fetch that fails later never stops a chain: the last good copy serves for up to
 * `maxAgeSeconds`, and the snapshot names the failure.
 */
import { UserError } from '../common/errors';
import { clipText } from '../common/limits';
import { JWKS_DEFAULTS, type JwksSource, keysOfJwks, type KeySetRecord } from '../common/signatures/jwks';
import type { ApproverKey } from '../common/signatures/keys';

/** The largest key set document a worker reads, in bytes. */
const MAX_JWKS_BYTES = 512 * 1024;
/** How long a worker waits for a key set, its whole body included. */
const FETCH_TIMEOUT_MS = 5_000;

/** Options of `fetchKeySet`, the fetch of one key set. */
export interface FetchKeySetOptions {
  /** How long the fetch may take, from the request to the last byte of the body. @default 5000 */
  timeoutMs?: number;
}

/** Options of {@link KeySetResolver}. */
export interface KeySetResolverOptions extends FetchKeySetOptions {
  /** The clock a copy's age is measured by, in milliseconds since the epoch. @default Date.now */
  now?: () => number;
}

/** A published key set a worker cannot use: which URL, and what is wrong with it. */
export class KeySetError extends UserError<{ url: string; problem: string }> {
  constructor(url: string, problem: string) {
    super(`the team's key set ${url} ${problem}`, { url, problem });
  }
}

/** One set's copy: its keys when last fetched well, and the last failure since. */
interface Copy {
  keys: ApproverKey[];
  fetchedAt: number;
  triedAt: number;
  error?: string;
  pending?: Promise<void>;
}

/** The keys of a team's `jwks`, one copy per set (so as many copies as the team names sets, at most 10). */
export class KeySetResolver {
  readonly #copies = new Map<string, Copy>();
  readonly #now: () => number;
  readonly #fetch: FetchKeySetOptions;

  /** The resolver of `sources`, with the clock copies age by and the fetch timeout (`options`). */
  constructor(
    private readonly sources: readonly JwksSource[],
    options: KeySetResolverOptions = {},
  ) {
    const { now = Date.now, ...fetch } = options;
    this.#now = now;
    this.#fetch = fetch;
  }

  /** Fetch every set the worker has no copy of; the first that cannot be fetched or used throws its {@link KeySetError}. */
  async start(): Promise<void> {
    for (const source of this.sources) {
      if (this.#copies.has(source.url)) continue;
      const at = this.#now();
      this.#copies.set(source.url, { keys: await fetchKeySet(source, this.#fetch), fetchedAt: at, triedAt: at });
    }
  }

  /** The keys each set gives a new chain, fetched again where the copy is older than its `refreshSeconds`. Never throws. */
  async records(): Promise<KeySetRecord[]> {
    await Promise.all(this.sources.map((s) => this.#refresh(s)));
    return this.sources.map((source) => {
      const copy = this.#copies.get(source.url);
      const maxAge = (source.maxAgeSeconds ?? Math.max(JWKS_DEFAULTS.maxAgeSeconds, source.refreshSeconds ?? 0)) * 1000;
      const usable = copy && this.#now() - copy.fetchedAt <= maxAge;
      const error =
        copy?.error !== undefined && !usable
          ? `${copy.error}; its last good copy is older than ${maxAge / 1000} s, so none of its keys is trusted`
          : copy?.error !== undefined
            ? `${copy.error}; its keys are those of the copy fetched at ${new Date(copy.fetchedAt).toISOString()}`
            : undefined;
      return {
        url: source.url,
        fetchedAt: new Date(copy?.fetchedAt ?? 0).toISOString(),
        keys: usable ? copy.keys.map((k) => ({ ...k })) : [],
        ...(error !== undefined ? { error } : {}),
      };
    });
  }

  #refresh(source: JwksSource): Promise<void> {
    const copy = this.#copies.get(source.url);
    const every = (source.refreshSeconds ?? JWKS_DEFAULTS.refreshSeconds) * 1000;
    if (!copy) return Promise.resolve();
    // A copy is fetched again once it is older than refreshSeconds (as maxAgeSeconds, the bound itself still serves).
    // A failed fetch is tried again no sooner than a good copy would be, so an unreachable set costs each new chain no wait.
    if (copy.pending || this.#now() - copy.triedAt <= every) return copy.pending ?? Promise.resolve();
    copy.triedAt = this.#now();
    const pending = fetchKeySet(source, this.#fetch).then(
      (keys) => void Object.assign(copy, { keys, fetchedAt: copy.triedAt, error: undefined }),
      (err: unknown) =>
        void (copy.error = clipText(err instanceof KeySetError ? err.details.problem : String(err), 1000)),
    );
    copy.pending = pending.finally(() => (copy.pending = undefined));
    return copy.pending;
  }
}

/** The keys `source` takes from its set as the URL serves it now, or a {@link KeySetError} naming the URL and the problem. */
export async function fetchKeySet(source: JwksSource, options: FetchKeySetOptions = {}): Promise<ApproverKey[]> {
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
  const hint = `check the URL and that the identity provider answers within ${timeoutMs / 1000} s`;
  let response: Response;
  try {
    response = await fetch(source.url, {
      redirect: 'error',
      // The timeout covers the body too: a read that stalls past it fails with the same signal.
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/jwk-set+json, application/json' },
    });
  } catch (err) {
    throw new KeySetError(source.url, `could not be fetched (${causeOf(err)}); ${hint}`);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new KeySetError(source.url, `answered HTTP ${response.status} instead of 200 with a JWK Set`);
  }
  if (Number(response.headers.get('content-length')) > MAX_JWKS_BYTES) {
    await response.body?.cancel();
    throw new KeySetError(
      source.url,
      `is ${response.headers.get('content-length')} bytes long; a key set may be at most ${MAX_JWKS_BYTES}`,
    );
  }
  const text = await bodyText(source.url, response, hint);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new KeySetError(
      source.url,
      `is not JSON (it begins ${JSON.stringify(text.slice(0, 40))}); a JWK Set is {"keys": [...]}`,
    );
  }
  const taken = keysOfJwks(source, doc);
  if (!taken.ok) throw new KeySetError(source.url, taken.problem);
  return taken.keys;
}

/**
 * The body as UTF-8 text, counted in bytes as it arrives: a body past {@link MAX_JWKS_BYTES} (with
 * or without a content-length) is cancelled there, so the worker never holds more of it.
 */
async function bodyText(url: string, response: Response, hint: string): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const read = await reader.read().catch((err: unknown) => {
      throw new KeySetError(url, `could not be read to its end (${causeOf(err)}); ${hint}`);
    });
    if (read.done) break;
    bytes += read.value.byteLength;
    if (bytes > MAX_JWKS_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new KeySetError(url, `is longer than ${MAX_JWKS_BYTES} bytes; a key set may be at most ${MAX_JWKS_BYTES}`);
    }
    chunks.push(read.value);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new KeySetError(url, 'is not UTF-8 text; a JWK Set is JSON, in UTF-8');
  }
}

/** What a failed fetch or read says: the network's own reason where fetch wraps one. */
function causeOf(err: unknown): string {
  if (err instanceof Error && err.cause instanceof Error) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}
