import type { CallModelInput, ModelResponse } from '../common/model';

/** What a provider gets besides the request. */
export interface ModelCallContext {
  /** 1 on the first activity attempt; from 1 again when the call starts again after a lost worker. */
  attempt: number;
  /** Aborted when the activity is cancelled or times out. */
  signal: AbortSignal;
  /** A cancellation-aware sleep. */
  sleep: (ms: number) => Promise<void>;
  /**
   * Report progress (a streaming provider calls it per chunk, as often as it likes): the activity
   * keeps the latest `details` and sends them with its timed heartbeats, as seldom as the run's
   * `heartbeatTimeout` allows, and when the call fails; the next attempt reads them as
   * {@link ModelCallContext.previousHeartbeat}.
   */
  heartbeat?: (details?: unknown) => void;
  /** The details of the last heartbeat of the previous attempt (or of the attempt a lost worker ended), if any. */
  previousHeartbeat?: unknown;
  /**
   * Give the answer's text as it forms, piece by piece, in order (a provider that streams opts in by
   * calling it): followers of the chain see it before the call ends. Present when the chain streams.
   * The answer the call returns stays the record; text given here for an attempt that then fails is
   * dropped by followers when the next attempt starts.
   */
  text?: (piece: string) => void;
}

/**
 * A model backend. Providers run inside the `callModel` activity; a retryable failure is thrown as
 * a retryable `ApplicationFailure` (with `nextRetryDelay` when the server said when to retry), a
 * permanent one as a non-retryable `ModelRequestError`.
 */
export interface ModelProvider {
  /** One model call: the conversation and tools in `input`, the answer as text and tool calls. */
  call(input: CallModelInput, context: ModelCallContext): Promise<ModelResponse>;
}

/**
 * Providers by the `provider` field of a model spec: `openai` and `scripted` are built in;
 * add others by name (`{anthropic: new AnthropicProvider()}`), or replace a built-in.
 */
export type ModelProviders = Record<string, ModelProvider>;

/** A rough token count for providers that do not report one: four characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
