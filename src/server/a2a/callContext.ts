/**
 * What the A2A route and the handler pass each other in a call's state: the caller the route
 * authenticated, and a refusal the handler leaves for the route to answer with its HTTP status.
 */
import type { ServerCallContext } from '@a2a-js/sdk/server';
import { A2AError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { TokenChecked } from '../auth';
import { toProblem } from '../problems';

/** Where the route leaves the caller, and where the handler leaves a refusal the route answers with its HTTP status. */
export const CALLER = 'baton.caller';
export const REFUSAL = 'baton.refusal';

/** The caller the route authenticated. */
export function callerOf(context: ServerCallContext): TokenChecked {
  const caller = context.state.get(CALLER) as TokenChecked | undefined;
  if (!caller) throw new Error('the A2A route authenticates every call before it reaches the handler');
  return caller;
}

/**
 * Run `fn`; a refusal the service answers with an HTTP status (401, 403, 413, 429) is left for the
 * route, other problems become A2A errors naming what went wrong.
 */
export async function guarded<T>(context: ServerCallContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof A2AError) throw err;
    const problem = toProblem(err);
    if ([401, 403, 413, 429].includes(problem.status)) {
      context.state.set(REFUSAL, problem);
      throw err;
    }
    if (problem.status === 404) throw new TaskNotFoundError(problem.message || problem.title);
    if (problem.status === 400 || problem.status === 409)
      throw new RequestMalformedError(
        [problem.message, ...(problem.errors ?? []).map((e) => `${e.path}: ${e.message}`)].filter(Boolean).join('; '),
      );
    throw err;
  }
}
