/**
 * How a failed AI SDK call is judged, as the OpenAI provider judges its own: retried by Temporal
 * (honouring `Retry-After`) when retrying can help, failed at once with a non-retryable
 * {@link ModelRequestError} when the request or the worker's setup is at fault.
 */
import {
  AISDKError,
  APICallError,
  EmptyResponseBodyError,
  InvalidArgumentError,
  InvalidPromptError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  LoadSettingError,
  NoContentGeneratedError,
  NoSuchModelError,
  TypeValidationError,
  UnsupportedFunctionalityError,
} from '@ai-sdk/provider';
import { ApplicationFailure } from '@temporalio/common';
import { ModelRequestError, toApplicationFailure } from '../../common/errors';
import { blamesRequest, causeOf, isRetryableStatus, retryAfterMs } from '../openaiFailures';

/** Errors that say the worker's setup or the request is wrong: the same call would fail the same way. */
const SETUP_ERRORS = [
  LoadAPIKeyError,
  LoadSettingError,
  UnsupportedFunctionalityError,
  InvalidPromptError,
  InvalidArgumentError,
  NoSuchModelError,
];
/** Errors of an answer that could not be read: another attempt may read a good one. */
const MALFORMED_ANSWERS = [
  JSONParseError,
  TypeValidationError,
  InvalidResponseDataError,
  EmptyResponseBodyError,
  NoContentGeneratedError,
];

/** The failure the activity throws for an error of an AI SDK model call. */
export function aiSdkFailure(err: unknown): unknown {
  if (err instanceof ApplicationFailure) return err;
  if (APICallError.isInstance(err)) return httpFailure(err);
  if (SETUP_ERRORS.some((e) => e.isInstance(err))) {
    const e = err as AISDKError;
    return toApplicationFailure(
      new ModelRequestError(`the AI SDK model refused the call (${e.name}): ${clip(e.message)}`),
    );
  }
  if (MALFORMED_ANSWERS.some((e) => e.isInstance(err))) {
    const e = err as AISDKError;
    return ApplicationFailure.retryable(
      `the model's answer could not be read (${e.name}): ${clip(e.message)}`,
      'ModelMalformedResponse',
    );
  }
  if (AISDKError.isInstance(err))
    return ApplicationFailure.retryable(`the AI SDK model failed (${err.name}): ${clip(err.message)}`, 'ModelError');
  return err;
}

function httpFailure(err: APICallError): ApplicationFailure {
  const status = err.statusCode;
  if (status === undefined) {
    const text = `model endpoint unreachable at ${err.url}: ${causeOf(err) ?? err.message}`;
    return err.isRetryable
      ? ApplicationFailure.retryable(text, 'ModelConnectionError')
      : toApplicationFailure(new ModelRequestError(text));
  }
  // The AI SDK reports a successful answer that broke off while it was read with the answer's own status.
  if (status >= 200 && status < 300)
    return ApplicationFailure.retryable(
      `the model's answer broke off: ${causeOf(err) ?? err.message}`,
      'ModelStreamInterrupted',
    );
  const text = `model endpoint answered ${status}: ${clip(err.message)}`;
  if (!isRetryableStatus(status)) return toApplicationFailure(new ModelRequestError(text, status));
  if (status >= 500 && blamesRequest(`${err.message} ${err.responseBody ?? ''}`)) {
    return toApplicationFailure(
      new ModelRequestError(`${text} (the answer blames the request, so it is not retried)`, status),
    );
  }
  const headers = err.responseHeaders ? new Headers(err.responseHeaders) : undefined;
  return ApplicationFailure.create({
    message: text,
    type: 'ModelHttpError',
    details: [{ status }],
    nextRetryDelay: retryAfterMs(headers),
  });
}

function clip(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
