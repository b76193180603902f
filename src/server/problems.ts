/**
 * Errors as HTTP answers: RFC 9457 problem details (`application/problem+json`) with a status
 * that says whose fault it is, field errors for bad input, and never a stack trace.
 */
import { ServiceError, WorkflowNotFoundError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApprovalRefusedError, InputTooLargeError, InvalidRunInputError, UserError } from '../common/errors';

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

const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_NOT_FOUND = 5;

/** The HTTP answer for `err`; unexpected errors become a 500 that says nothing about internals. */
export function toProblem(err: unknown): HttpProblem {
  if (err instanceof HttpProblem) return err;
  // Hono's own refusals: a body that is not JSON, a request too large.
  if (err instanceof HTTPException && err.status < 500) return new HttpProblem(err.status as ContentfulStatusCode, 'Invalid request', err.message || 'The request cannot be read.');
  if (err instanceof WorkflowNotFoundError || grpcCode(err) === GRPC_NOT_FOUND) {
    return new HttpProblem(404, 'Not found', err instanceof WorkflowNotFoundError ? `no chain ${err.workflowId}` : 'no such chain');
  }
  const code = grpcCode(err);
  if (code === GRPC_UNAVAILABLE) return new HttpProblem(503, 'Temporal unavailable', 'Temporal cannot be reached right now; try again shortly.', undefined, { 'retry-after': '5' });
  if (code === GRPC_DEADLINE_EXCEEDED) {
    return new HttpProblem(503, 'Temporal did not answer', 'Temporal (or the workers serving this chain) did not answer in time; try again shortly.', undefined, { 'retry-after': '5' });
  }
  if (err instanceof InvalidRunInputError) return new HttpProblem(400, 'Invalid run input', 'The run input is not valid.', err.problems.map(fieldError));
  if (err instanceof ApprovalRefusedError) return new HttpProblem(409, 'Decision refused', err.reason);
  if (err instanceof InputTooLargeError) return new HttpProblem(413, 'Input too large', err.message, err.fields.map((f) => ({ path: f.field, message: `is ${f.size} ${f.unit}; the limit is ${f.limit}` })));
  if (err instanceof UserError) return new HttpProblem(409, 'Refused', err.message);
  return new HttpProblem(500, 'Internal error', 'The service failed to handle this request; the failure is in its log.');
}

/** Answer with `problem` as problem details. */
export function sendProblem(c: Context, problem: HttpProblem): Response {
  const body: Problem = { title: problem.title, status: problem.status, detail: problem.message, ...(problem.errors ? { errors: problem.errors } : {}) };
  return c.body(JSON.stringify(body), problem.status, { 'content-type': 'application/problem+json', ...problem.headers });
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
  if (err instanceof ServiceError || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return grpcCode(err.cause);
  return undefined;
}
