/**
 * Pieces of the OpenAPI document shared by the routes: the problem responses and JSON bodies.
 */
import type { z } from '@hono/zod-openapi';
import { ProblemSchema } from './schemas';

const WHY = {
  400: 'Malformed input, with the field errors',
  401: 'No valid bearer token',
  403: "The token's roles do not grant the permission this needs (named in the detail), or the policy does not list its identity",
  404: 'No such chain, conversation or approval',
  409: 'Refused in the current state (e.g. an approval already decided, a chain still running, an id that is not a conversation)',
  413: 'The body is over the service’s limit, or what it would send to Temporal is over Temporal’s payload limit (the limit is named in the detail); nothing was sent',
  422: 'The turn failed: the typed error (its class name and message) is in the detail; the conversation goes on as before the message',
  429: 'Too many starts for this identity; see Retry-After',
  503: 'Temporal (or the workers of the chain) cannot be reached; see Retry-After',
} as const;

/** Problem-details responses for these statuses (each described: a status without a description here does not type-check). */
export function problems(...statuses: (keyof typeof WHY)[]) {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      { description: WHY[s], content: { 'application/problem+json': { schema: ProblemSchema } } },
    ]),
  ) as Record<
    number,
    { description: string; content: { 'application/problem+json': { schema: typeof ProblemSchema } } }
  >;
}

/** A JSON body (request or response) of `schema`. */
export function jsonBody<S extends z.ZodType>(schema: S, description: string) {
  return { description, content: { 'application/json': { schema } } };
}
