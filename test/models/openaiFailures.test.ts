import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import {
  blamesRequest,
  classify,
  isRetryableStatus,
  repeatableFailureKey,
  retryAfterMs,
} from '../../src/models/openaiFailures';
import { MISSING_CONTENT_ERROR, NULL_CONTENT_ERROR } from '../helpers/openaiServer';

/** An error of the `openai` client for an HTTP answer, as the client builds it. */
function httpError(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): { err: APIError; body: string } {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const json = typeof body === 'string' ? undefined : (body as Record<string, unknown>);
  return {
    err: APIError.generate(status, json, typeof body === 'string' ? body : undefined, new Headers(headers)),
    body: text,
  };
}

function judged(status: number, body: unknown): ApplicationFailure {
  const { err, body: text } = httpError(status, body);
  const failure = classify(err, text);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  return failure as ApplicationFailure;
}

describe('retry classification', () => {
  it('retries 408, 409, 429 and 5xx but 501 and 505', () => {
    expect([408, 409, 429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 422, 501, 505].some(isRetryableStatus)).toBe(false);
  });

  it('reads Retry-After in seconds, as a date, and retry-after-ms', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '150' }))).toBe(150);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
  });

  it('fails a 500 at once when its answer blames the request', () => {
    const bodies = [
      // llama-cpp-python 0.3.36 on an assistant message whose content is null, and on one without content
      { error: { message: NULL_CONTENT_ERROR, type: 'internal_server_error', param: null, code: null } },
      { error: { message: MISSING_CONTENT_ERROR, type: 'internal_server_error', param: null, code: null } },
      // a Jinja chat template concatenating a null content
      { error: { message: 'can only concatenate str (not "NoneType") to str', type: 'internal_server_error' } },
      // pydantic, raised inside a handler
      {
        error: {
          message:
            '1 validation error for ChatCompletionRequestAssistantMessage\ncontent\n  Input should be a valid string',
          type: 'internal_server_error',
        },
      },
      // a chat template refusing the conversation
      {
        error: {
          message: 'Conversation roles must alternate user/assistant/user/assistant/...',
          type: 'internal_server_error',
        },
      },
      // FastAPI's own shape, which the client does not read
      { detail: "Unsupported parameter: 'parallel_tool_calls'" },
      // vLLM's older top-level shape
      {
        object: 'error',
        message: 'This model does not support tools',
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    ];
    for (const body of bodies) {
      const failure = judged(500, body);
      expect(failure.type).toBe('ModelRequestError');
      expect(failure.nonRetryable).toBe(true);
    }
    expect(judged(500, { detail: "Unsupported parameter: 'parallel_tool_calls'" }).message).toContain(
      'parallel_tool_calls',
    );
  });

  it('retries a 500 that says nothing of the request, or sounds passing', () => {
    for (const body of [
      { error: { message: 'Internal Server Error' } },
      'Internal Server Error',
      { error: { message: 'CUDA error: out of memory (invalid state)' } },
      { error: { message: 'model is loading, try again' } },
      '',
    ]) {
      const failure = judged(500, body);
      expect(failure.type).toBe('ModelHttpError');
      expect(failure.nonRetryable).toBe(false);
    }
  });

  it('fails 501 and 505 at once and keeps 503 retryable with its Retry-After', () => {
    expect(judged(501, { error: { message: 'Not Implemented' } }).type).toBe('ModelRequestError');
    expect(judged(505, 'HTTP Version Not Supported').type).toBe('ModelRequestError');
    const { err, body } = httpError(503, { error: { message: 'busy' } }, { 'retry-after': '4' });
    const failure = classify(err, body) as ApplicationFailure;
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(4000);
  });

  it('retries network errors and reads a status from an error event inside a stream', () => {
    expect((classify(new APIConnectionError({ message: 'ECONNREFUSED' })) as ApplicationFailure).type).toBe(
      'ModelConnectionError',
    );
    // vLLM sends `data: {"error": {…, "code": 400}}` in the stream; the client builds an APIError without status.
    const inStream = new APIError(
      undefined,
      { message: 'Invalid tool call arguments', type: 'BadRequestError', code: 400 },
      undefined,
      new Headers(),
    );
    expect((classify(inStream) as ApplicationFailure).type).toBe('ModelRequestError');
  });

  it('keys only 500s that name their cause, for recognising the same one twice', () => {
    const named = httpError(500, { error: { message: "KeyError: 'tool_call_id'" } });
    expect(repeatableFailureKey(named.err, named.body)).toMatch(/^500:/);
    expect(repeatableFailureKey(named.err, named.body)).toBe(repeatableFailureKey(named.err, named.body));
    for (const body of [
      { error: { message: 'Internal Server Error' } },
      '',
      { error: { message: 'server overloaded' } },
    ]) {
      const e = httpError(500, body);
      expect(repeatableFailureKey(e.err, e.body)).toBeUndefined();
    }
    const gateway = httpError(502, { error: { message: 'upstream sent garbage' } });
    expect(repeatableFailureKey(gateway.err, gateway.body)).toBeUndefined();
  });

  it('blames the request only without words of a passing problem', () => {
    expect(blamesRequest('Invalid message: content must be a string')).toBe(true);
    expect(blamesRequest('connection reset by peer (invalid state)')).toBe(false);
    expect(blamesRequest('upstream broke')).toBe(false);
  });
});
