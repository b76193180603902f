/**
 * How a failed Chat Completions call is judged: retried by Temporal (honouring `Retry-After`), or
 * failed at once with a non-retryable {@link ModelRequestError} when retrying cannot help.
 */
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIError } from 'openai';
import { ModelRequestError, toApplicationFailure } from '../common/errors';

/** HTTP statuses worth retrying: timeouts, conflicts, rate limits and server errors but 501 and 505, which say the server cannot do it at all. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

/** Milliseconds the server asked us to wait (`retry-after-ms`, `retry-after` in seconds or as a date). */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

// Words in a server error that blame the request (pydantic and FastAPI validation, unsupported
// parameters, Python errors on a null or missing field, chat templates refusing a conversation, a
// context overflow): the same request would get the same answer. llama-cpp-python answers 500 with
// "7 validation errors: … 'input': None" to `content: null` and "'dict object' has no attribute
// 'content'" to a message without content.
const BLAMES_REQUEST =
  /validation error|invalid_request|bad ?request|not supported|unsupported|unrecognized|unexpected keyword|extra (inputs|fields)|unknown (parameter|field|argument)|\binvalid\b|\bmust\b|is required|field required|missing required|nonetype|has no attribute|template|raise_exception|context (length|window)|too long/i;
// Words of a server having a bad moment; they win over the above.
const TRANSIENT =
  /out of memory|\boom\b|overload|busy|unavailable|timed? ?out|temporar|try again|loading|capacity|connection|reset by peer|rate limit|too many|shutting down|restart|queue|cuda/i;
const GENERIC =
  /^(\d{3}\s*)?(internal server error|internal error|server error|unknown error|error|\(no body\)|status code \(no body\))?\.?$/i;

/** Whether the text of a 5xx answer shows a problem with the request rather than with the server. */
export function blamesRequest(text: string): boolean {
  return BLAMES_REQUEST.test(text) && !TRANSIENT.test(text);
}

/** What a server said when it refused a call. */
export interface ServerAnswer {
  status: number;
  /** The server's own message: `error.message`, `detail` or `message` of its JSON body, else the body. */
  message: string;
  headers?: Headers;
}

/**
 * The status and message of an HTTP error. `body` is the raw text of the answer: the client reads
 * only an `error` field, and FastAPI (`detail`) and some vLLM versions (top-level `message`) put it elsewhere.
 */
export function serverAnswer(err: APIError, body?: string): ServerAnswer {
  // An error event inside a stream has no HTTP status; vLLM puts one in `code`.
  const code = (err.error as { code?: unknown } | undefined)?.code;
  const status = err.status ?? (typeof code === 'number' && code >= 400 && code < 600 ? code : 500);
  return {
    status,
    message: messageOf(err.error) ?? messageOf(parseJson(body)) ?? clip(body?.trim()) ?? err.message,
    headers: err.headers,
  };
}

function messageOf(value: unknown): string | undefined {
  if (typeof value === 'string') return clip(value);
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const inner = messageOf(v.error) ?? messageOf(v.message) ?? messageOf(v.detail);
  if (inner) return inner;
  return Array.isArray(v.detail) ? clip(JSON.stringify(v.detail)) : undefined;
}

function parseJson(text: string | undefined): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

function clip(text: string | undefined, max = 500): string | undefined {
  if (!text) return undefined;
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * A connection that could not be made, naming the endpoint and why (a refused connection, a name
 * that does not resolve) rather than the client's bare "Connection error.": retryable.
 */
export function unreachableFailure(err: Error, baseURL: string): ApplicationFailure {
  const why = causeOf(err) ?? err.message;
  return ApplicationFailure.retryable(`model endpoint unreachable at ${baseURL}: ${why}`, 'ModelConnectionError');
}

/** The innermost cause's code and message (`ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9`). */
export function causeOf(err: Error): string | undefined {
  let cause: unknown = err.cause;
  let found: string | undefined;
  for (let depth = 0; cause instanceof Error && depth < 5; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    found = typeof code === 'string' && !cause.message.includes(code) ? `${code}: ${cause.message}` : cause.message;
    cause = cause.cause;
  }
  return found;
}

/** A retryable failure of the stream itself (cut off, or silent too long). */
export function streamFailure(
  type: 'ModelStreamInterrupted' | 'ModelStreamStalled',
  message: string,
): ApplicationFailure {
  return ApplicationFailure.retryable(message, type);
}

/**
 * Turn an error of the `openai` client into the failure the activity throws: retryable for
 * 408/409/429, network errors, malformed JSON and 5xx whose answer does not blame the request; a non-retryable
 * {@link ModelRequestError} for everything else.
 */
export function classify(err: unknown, body?: string): unknown {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof SyntaxError)
    return ApplicationFailure.retryable(
      `the model endpoint answered with malformed JSON: ${err.message}`,
      'ModelMalformedResponse',
    );
  if (err instanceof APIConnectionError) {
    return ApplicationFailure.retryable(`model endpoint unreachable: ${err.message}`, 'ModelConnectionError');
  }
  if (!(err instanceof APIError)) return err;
  const answer = serverAnswer(err, body);
  const text = `model endpoint answered ${answer.status}: ${answer.message}`;
  if (!isRetryableStatus(answer.status)) return toApplicationFailure(new ModelRequestError(text, answer.status));
  if (answer.status >= 500 && blamesRequest(`${answer.message} ${body ?? ''}`)) {
    return toApplicationFailure(
      new ModelRequestError(`${text} (the answer blames the request, so it is not retried)`, answer.status),
    );
  }
  return ApplicationFailure.create({
    message: text,
    type: 'ModelHttpError',
    details: [{ status: answer.status }],
    nextRetryDelay: retryAfterMs(answer.headers),
  });
}

/**
 * A key for a 500 that names its cause, or `undefined` for one that does not (an empty or generic
 * body, or words of a passing problem). The same key for the same request on two consecutive
 * attempts means the server will keep answering so.
 */
export function repeatableFailureKey(err: unknown, body?: string): string | undefined {
  if (!(err instanceof APIError) || err instanceof APIConnectionError) return undefined;
  const answer = serverAnswer(err, body);
  if (answer.status !== 500 || GENERIC.test(answer.message.trim()) || TRANSIENT.test(answer.message)) return undefined;
  return `500:${fingerprint(answer.message)}`;
}

/** The failure to throw when a 500 repeats for the same request: non-retryable. */
export function repeatedFailure(err: APIError, body?: string): ApplicationFailure {
  const answer = serverAnswer(err, body);
  return toApplicationFailure(
    new ModelRequestError(
      `model endpoint answered ${answer.status}: ${answer.message} (the same answer to the same request as the previous attempt, so it is not retried again)`,
      answer.status,
    ),
  );
}

/** A short stable digest of a value (a request, a message). */
export function fingerprint(value: unknown): string {
  return createHash('sha256')
    .update(typeof value === 'string' ? value : JSON.stringify(value))
    .digest('hex')
    .slice(0, 16);
}
