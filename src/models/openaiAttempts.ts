/**
 * How the OpenAI provider weighs one attempt against the attempts of the same request before it:
 * what it heartbeats as it calls, timeouts and cut streams counted in a row, and the failure an
 * attempt ends with (retried after a pause, asked without streaming, or failed for good).
 */
import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, type APIError } from 'openai';
import { acceptsConnections, type Endpoint } from './openaiEndpoint';
import { classify, repeatableFailureKey, repeatedFailure, streamFailure, unreachableFailure } from './openaiFailures';
import type { ModelCallContext } from './provider';

/**
 * What the provider heartbeats while it calls: a digest of the request, the chunks streamed so
 * far, and how the attempt failed (and how many attempts in a row failed so). The next attempt
 * reads it as `previousHeartbeat`.
 * @internal
 */
export interface OpenAICallProgress {
  request: string;
  chunks?: number;
  failure?: string;
  count?: number;
}

const STREAM_INTERRUPTED = 'stream-interrupted';
const TIMED_OUT = 'timed-out';
/** Attempts of one request that may time out in a row before the call fails: a slow server is not sent the same work again and again. */
const MAX_TIMEOUTS = 2;
/** A request whose stream was cut this many times in a row is asked once without streaming. */
const CUTS_BEFORE_WHOLE = 2;
/** The longest pause before a timed-out request is sent again (never longer than its timeout). */
const PAUSE_AFTER_TIMEOUT_MS = 15_000;

/** Whether the request's stream was cut so often in a row that it is asked once without streaming. */
export function cutTooOften(previous: OpenAICallProgress | undefined): boolean {
  return previous?.failure === STREAM_INTERRUPTED && (previous.count ?? 1) >= CUTS_BEFORE_WHOLE;
}

/** A stream that broke off: the attempt fails to be retried, and counts as cut for the next one. */
export function interruptedFailure(
  context: ModelCallContext,
  progress: OpenAICallProgress,
  previous: OpenAICallProgress | undefined,
  message: string,
): ApplicationFailure {
  context.heartbeat?.({
    request: progress.request,
    failure: STREAM_INTERRUPTED,
    count: inARow(previous, STREAM_INTERRUPTED),
  });
  return streamFailure('ModelStreamInterrupted', message);
}

/**
 * A server that took too long: retried after a pause (the request was aborted, so the server can
 * stop), then, on the same request's next timeout in a row, failed for good.
 */
export function slowFailure(
  endpoint: Endpoint,
  context: ModelCallContext,
  progress: OpenAICallProgress,
  previous: OpenAICallProgress | undefined,
  type: string,
  what: string,
): ApplicationFailure {
  const count = inARow(previous, TIMED_OUT);
  const message = `model endpoint slow: ${what}`;
  if (count >= MAX_TIMEOUTS) {
    const advice =
      "raise the model's settings.timeoutMs, lower its settings.maxTokens, or use a faster model or server";
    return ApplicationFailure.create({
      message: `${message}; the same request timed out ${count} times in a row, so it is not sent again (${advice})`,
      type,
      nonRetryable: true,
    });
  }
  context.heartbeat?.({ request: progress.request, failure: TIMED_OUT, count });
  return ApplicationFailure.create({
    message,
    type,
    nextRetryDelay: Math.min(endpoint.timeoutMs, PAUSE_AFTER_TIMEOUT_MS),
  });
}

/**
 * What a failed attempt throws: the caller's cancellation, a slow server's or an unreachable one's
 * failure, or the answer as classified — a retryable failure that the same request got the attempt
 * before fails for good.
 */
export async function attemptFailure(
  err: unknown,
  endpoint: Endpoint,
  context: ModelCallContext,
  progress: OpenAICallProgress,
  previous?: OpenAICallProgress,
): Promise<unknown> {
  if (context.signal.aborted) return context.signal.reason ?? err;
  const baseURL = endpoint.client.baseURL;
  if (err instanceof APIConnectionTimeoutError && (await acceptsConnections(baseURL))) {
    return slowFailure(
      endpoint,
      context,
      progress,
      previous,
      'ModelTimeout',
      `${baseURL} accepts connections but sent no answer within ${endpoint.timeoutMs} ms`,
    );
  }
  if (err instanceof APIConnectionError) return unreachableFailure(err, baseURL);
  const body = endpoint.errorBody.text;
  const failure = classify(err, body);
  const key =
    failure instanceof ApplicationFailure && !failure.nonRetryable ? repeatableFailureKey(err, body) : undefined;
  if (!key) return failure;
  if (previous?.failure === key) return repeatedFailure(err as APIError, body);
  context.heartbeat?.({ request: progress.request, failure: key });
  return failure;
}

/** How many attempts in a row, this one included, failed as `failure`. */
function inARow(previous: OpenAICallProgress | undefined, failure: string): number {
  return (previous?.failure === failure ? (previous.count ?? 1) : 0) + 1;
}

/** The previous attempt's progress, when it was for this same request. */
export function previousProgress(details: unknown, request: string): OpenAICallProgress | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const p = details as Partial<OpenAICallProgress>;
  return p.request === request ? (p as OpenAICallProgress) : undefined;
}
