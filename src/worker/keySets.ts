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

/** The largest key set document a worker reads. */
const MAX_JWKS_BYTES = 512 * 1024;
/** How long a worker waits for a key set. */
const FETCH_TIMEOUT_MS = 5_000;

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

  constructor(
    private readonly sources: readonly JwksSource[],
    private readonly now: () => number = Date.now,
  ) {}

  /** Fetch every set the worker has no copy of; the first that cannot be fetched or used throws its {@link KeySetError}. */
  async start(): Promise<void> {
    for (const source of this.sources) {
      if (this.#copies.has(source.url)) continue;
      const at = this.now();
      this.#copies.set(source.url, { keys: await fetchKeySet(source), fetchedAt: at, triedAt: at });
    }
  }

  /** The keys each set gives a new chain, fetched again where the copy is older than its `refreshSeconds`. Never throws. */
  async records(): Promise<KeySetRecord[]> {
    await Promise.all(this.sources.map((s) => this.#refresh(s)));
    return this.sources.map((source) => {
      const copy = this.#copies.get(source.url);
      const maxAge = (source.maxAgeSeconds ?? Math.max(JWKS_DEFAULTS.maxAgeSeconds, source.refreshSeconds ?? 0)) * 1000;
      const usable = copy && this.now() - copy.fetchedAt <= maxAge;
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
    // A failed fetch is tried again no sooner than a good copy would be, so an unreachable set costs each new chain no wait.
    if (copy.pending || this.now() - copy.triedAt < every) return copy.pending ?? Promise.resolve();
    copy.triedAt = this.now();
    const pending = fetchKeySet(source).then(
      (keys) => void Object.assign(copy, { keys, fetchedAt: copy.triedAt, error: undefined }),
      (err: unknown) =>
        void (copy.error = clipText(err instanceof KeySetError ? err.details.problem : String(err), 1000)),
    );
    copy.pending = pending.finally(() => (copy.pending = undefined));
    return copy.pending;
  }
}

/** The keys `source` takes from its set as the URL serves it now, or a {@link KeySetError} naming the URL and the problem. */
export async function fetchKeySet(source: JwksSource): Promise<ApproverKey[]> {
  let response: Response;
  try {
    response = await fetch(source.url, {
      redirect: 'error',
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { accept: 'application/jwk-set+json, application/json' },
    });
  } catch (err) {
    const cause =
      err instanceof Error && err.cause instanceof Error
        ? err.cause.message
        : err instanceof Error
          ? err.message
          : String(err);
    throw new KeySetError(
      source.url,
      `could not be fetched (${cause}); check the URL and that the identity provider answers within ${FETCH_TIMEOUT_MS / 1000} s`,
    );
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
  const text = await response.text();
  if (text.length > MAX_JWKS_BYTES)
    throw new KeySetError(source.url, `is ${text.length} bytes long; a key set may be at most ${MAX_JWKS_BYTES}`);
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
