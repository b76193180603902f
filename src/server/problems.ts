/**
 * Errors as HTTP answers: RFC 9457 problem details (`application/problem+json`) with a status
 * that says whose fault it is, field errors for bad input, and never a stack trace.
 */
import {
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { QuestionRefusedError } from '../common/approvalQuestions';
import { ApprovalRefusedError, InputTooLargeError, InvalidRunInputError, UserError } from '../common/errors';
import { sizeMessage } from '../common/limits';
import { workflowTaskFailing } from '../client/taskFailing';

/** One problem with a request field. */
export interface FieldError {
  /** The field, dotted (`options.maxHandoffs`); empty for the body as a whole. */
  path: string;
  message: string;
}

/** The body of every error answer. */
export interface Problem {
  title: string;
  status: number;
  detail: string;
  /** Problems with individual fields of the request. */
  errors?: FieldError[];
}

/** An error that is already an HTTP answer. */
export class HttpProblem extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly title: string,
    detail: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = new.target.name;
  }
}

/** gRPC status codes of Temporal's answers. */
const Grpc = {
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

const RETRY = { 'retry-after': '5' };
const RUN_NOT_ANSWERING =
  'The workers serving this run are retrying its workflow task (a worker was lost or is restarting), and Temporal takes no request for it until one completes: nothing was refused; send the same request again shortly.';

/**
 * The HTTP answer for `err`: baton's own errors and Temporal's answers each get a status that says
 * whose fault it is, in baton's words (Temporal's own text stays in the service's log); anything
 * else is a 500 that says nothing about internals.
 */
export function toProblem(err: unknown): HttpProblem {
  if (err instanceof HttpProblem) return err;
  // Hono's own refusals: a body that is not JSON, a request too large.
  if (err instanceof HTTPException && err.status < 500)
    return new HttpProblem(
      err.status as ContentfulStatusCode,
      'Invalid request',
      err.message || 'The request cannot be read.',
    );
  if (err instanceof WorkflowNotFoundError) return new HttpProblem(404, 'Not found', `no chain ${err.workflowId}`);
  if (err instanceof InvalidRunInputError)
    return new HttpProblem(400, 'Invalid run input', 'The run input is not valid.', err.problems.map(fieldError));
  if (err instanceof ApprovalRefusedError) return new HttpProblem(409, 'Decision refused', err.reason);
  if (err instanceof QuestionRefusedError) return new HttpProblem(409, 'Question refused', err.reason);
  if (err instanceof InputTooLargeError)
    return new HttpProblem(
      413,
      'Input too large',
      err.message,
      err.fields.map((f) => ({
        path: f.field,
        message: f.more ? sizeMessage(f) : `is ${f.size} ${f.unit}; the limit is ${f.limit}`,
      })),
    );
  if (err instanceof UserError) return new HttpProblem(409, 'Refused', err.message);
  // A run whose workflow task is being retried (its worker lost mid-task) takes nothing until a worker completes one: not a refusal.
  if (workflowTaskFailing(err)) return new HttpProblem(503, 'Run not answering', RUN_NOT_ANSWERING, undefined, RETRY);
  if (err instanceof WorkflowUpdateFailedError)
    return new HttpProblem(409, 'Refused', 'The workflow refused the request.');
  const code = grpcCode(err);
  return code === undefined
    ? new HttpProblem(500, 'Internal error', 'The service failed to handle this request; the failure is in its log.')
    : temporalProblem(code);
}

/** Temporal's refusal with gRPC status `code`, as an HTTP answer. */
function temporalProblem(code: number): HttpProblem {
  switch (code) {
    case Grpc.NOT_FOUND:
      return new HttpProblem(404, 'Not found', 'no such chain');
    case Grpc.INVALID_ARGUMENT:
    case Grpc.OUT_OF_RANGE:
      return new HttpProblem(
        400,
        'Refused by Temporal',
        "Temporal refused the request as invalid (an id, or a value over one of its limits); the details are in the service's log.",
      );
    case Grpc.ALREADY_EXISTS:
    case Grpc.FAILED_PRECONDITION:
      return new HttpProblem(409, 'Refused', 'Temporal refused the request in the current state of the workflow.');
    case Grpc.UNAVAILABLE:
      return new HttpProblem(
        503,
        'Temporal unavailable',
        'Temporal cannot be reached right now; try again shortly.',
        undefined,
        RETRY,
      );
    case Grpc.DEADLINE_EXCEEDED:
    case Grpc.CANCELLED:
      return new HttpProblem(
        503,
        'Temporal did not answer',
        'Temporal (or the workers serving this chain) did not answer in time; try again shortly.',
        undefined,
        RETRY,
      );
    case Grpc.RESOURCE_EXHAUSTED:
    case Grpc.ABORTED:
      return new HttpProblem(
        503,
        'Temporal is busy',
        'Temporal is over one of its rate or size limits; try again shortly.',
        undefined,
        RETRY,
      );
    default:
      // Temporal refused the service itself (its credentials, its version) or failed: the service's fault, not the caller's.
      return new HttpProblem(
        502,
        'Temporal failed',
        "Temporal failed or refused the service; the details are in the service's log.",
      );
  }
}

/** The problem details of `problem`. */
export function problemBody(problem: HttpProblem): Problem {
  return {
    title: problem.title,
    status: problem.status,
    detail: problem.message,
    ...(problem.errors ? { errors: problem.errors } : {}),
  };
}

/** Answer with `problem` as problem details. */
export function sendProblem(c: Context, problem: HttpProblem): Response {
  return c.body(JSON.stringify(problemBody(problem)), problem.status, {
    'content-type': 'application/problem+json',
    ...problem.headers,
  });
}

/** A validation message of baton's (`"options.maxHandoffs" must be …`) as a field error. */
export function fieldError(message: string): FieldError {
  const quoted = /^"([^"]+)"/.exec(message);
  return { path: quoted?.[1] ?? '', message };
}

function grpcCode(err: unknown): number | undefined {
  if (!(err instanceof Error)) return undefined;
  const own = (err as { code?: unknown }).code;
  if (typeof own === 'number') return own;
  if (err instanceof ServiceError || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
    return grpcCode(err.cause);
  return undefined;
}
