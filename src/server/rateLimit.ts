/**
 * Starts per identity: a token bucket per caller, in this process (each service replica limits
 * on its own, so a caller's ceiling is the limit times the replicas behind the load balancer).
 */
import { HttpProblem } from './problems';

/** How many chains each identity may start: `rateLimit` of {@link createBatonApp}. */
export interface RateLimitOptions {
  /** Starts (and replays) an identity may make per minute. @default 60 */
  startsPerMinute?: number;
  /** How many may come at once after a quiet spell. @default startsPerMinute */
  burst?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Token buckets by identity. */
export class StartLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private readonly burst: number;

  constructor(
    options: RateLimitOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    const perMinute = options.startsPerMinute ?? 60;
    if (!(perMinute > 0)) throw new Error('startsPerMinute must be above 0');
    this.perMs = perMinute / 60_000;
    this.burst = Math.max(1, options.burst ?? perMinute);
  }

  /** Take one start for `identity`, or throw 429 with `Retry-After`. */
  take(identity: string): void {
    const now = this.now();
    const bucket = this.buckets.get(identity) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    this.buckets.set(identity, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const waitS = Math.ceil((1 - bucket.tokens) / this.perMs / 1000);
    throw new HttpProblem(
      429,
      'Too many starts',
      `${identity} has used its starts for now; try again in ${waitS} s`,
      undefined,
      { 'retry-after': String(waitS) },
    );
  }
}
