/**
 * Evaluation on the HTTP service: an eval's report (or, while it runs, its progress), an
 * experiment's state and per-variant figures, stopping it, success per agent and per edge, and
 * saving a recorded chain into a dataset.
 */
import path from 'node:path';
import { createRoute, z } from '@hono/zod-openapi';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ExperimentError } from '../client/experiments';
import { UserError } from '../common/errors';
import { appendToDataset, lineFromChain } from '../eval/dataset';
import { EvalWorkflowType, evalProgressQuery } from '../common/eval/messages';
import { agentEdgeStats } from '../eval/stats/agents';
import { experimentStats } from '../eval/stats/experiment';
import type { EvalReport } from '../common/eval/types';
import { durationMs } from '../common/check';
import { secured } from './access';
import { Permission } from './auth';
import type { ServiceApp, ServiceContext } from './context';
import { mustBeChain } from './kinds';
import { jsonBody, problems } from './openapi';
import { idParam } from './schemas';
import { HttpProblem } from './problems';

const AnyObject = z.object({}).passthrough();

const evalRoute = createRoute({
  operationId: 'getEval',
  method: 'get',
  path: '/v1/evals/{id}',
  tags: ['evaluation'],
  summary: "An eval's report (baton eval): every case, regressions first, and its summary; while it runs, its progress",
  ...secured(Permission.READ),
  request: { params: idParam('The eval id (its workflow id)') },
  responses: {
    200: jsonBody(AnyObject, '`{status: "completed", report}` or `{status: "running", progress}`'),
    ...problems(400, 401, 403, 404, 409, 503),
  },
});

const experimentRoute = createRoute({
  operationId: 'getExperiment',
  method: 'get',
  path: '/v1/experiments/{id}',
  tags: ['evaluation'],
  summary:
    "An experiment's state and its figures per variant, each variant against the first with its significance tests",
  ...secured(Permission.READ),
  request: {
    params: idParam('The experiment id'),
    query: z.object({ limit: z.coerce.number().int().min(1).max(100_000).optional() }),
  },
  responses: { 200: jsonBody(AnyObject, 'The experiment and its figures'), ...problems(400, 401, 403, 404, 503) },
});

const stopRoute = createRoute({
  operationId: 'stopExperiment',
  method: 'post',
  path: '/v1/experiments/{id}/stop',
  tags: ['evaluation'],
  summary: 'Stop an experiment: every new chain goes to the winner; the caller is recorded as who stopped it',
  ...secured(Permission.START),
  request: {
    params: idParam('The experiment id'),
    body: {
      ...jsonBody(
        z.object({ winner: z.string().min(1).max(64), reason: z.string().max(1024).optional() }).strict(),
        'The winner',
      ),
      required: true,
    },
  },
  responses: { 200: jsonBody(AnyObject, 'Its state'), ...problems(400, 401, 403, 404, 409, 503) },
});

const statsRoute = createRoute({
  operationId: 'getStats',
  method: 'get',
  path: '/v1/stats',
  tags: ['evaluation'],
  summary:
    'Success per agent and per handoff edge of the chains started in a window, from visibility and their histories',
  ...secured(
    Permission.READ,
    '`since`: a duration back from now (`30m`, `1h`, `7 days`; default 1h); `query`: more of the visibility query.',
  ),
  request: {
    query: z.object({
      since: z.string().max(100).optional(),
      query: z.string().max(2000).optional(),
      limit: z.coerce.number().int().min(1).max(100_000).optional(),
    }),
  },
  responses: { 200: jsonBody(AnyObject, 'Agents and edges'), ...problems(400, 401, 403, 503) },
});

const datasetRoute = createRoute({
  operationId: 'addRunToDataset',
  method: 'post',
  path: '/v1/runs/{id}/dataset',
  tags: ['evaluation'],
  summary: "Save an ended chain into a dataset (a JSONL file in the service's dataset folder), marked good or bad",
  ...secured(
    Permission.START,
    'Served when the service has a dataset folder (`datasets.dir`, `baton serve --dataset-dir`); 404 otherwise.',
  ),
  request: {
    params: idParam('The chain id'),
    body: {
      ...jsonBody(
        z
          .object({
            verdict: z.enum(['good', 'bad']),
            dataset: z
              .string()
              .regex(/^[A-Za-z0-9_-]{1,64}$/)
              .openapi({ description: 'The dataset\'s name: letters, digits, "_" and "-"' }),
          })
          .strict(),
        'The verdict and the dataset',
      ),
      required: true,
    },
  },
  responses: { 201: jsonBody(AnyObject, 'Saved: the dataset and its line'), ...problems(400, 401, 403, 404, 409, 503) },
});

/** Where the service keeps datasets, when it does. */
export interface DatasetOptions {
  /** The folder of the datasets' JSONL files (`<dataset>.jsonl`). */
  dir: string;
}

/** Register the evaluation routes. */
export function evaluationRoutes(app: ServiceApp, ctx: ServiceContext, datasets: DatasetOptions | undefined): void {
  app.openapi(evalRoute, async (c) => {
    const { id } = c.req.valid('param');
    const handle = ctx.baton.client.workflow.getHandle<() => Promise<EvalReport>>(id);
    let description;
    try {
      description = await handle.describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new HttpProblem(404, 'Not found', `no eval ${id}`);
      throw err;
    }
    if (description.type !== EvalWorkflowType.EVAL_RUN)
      throw new HttpProblem(409, 'Not an eval', `${id} is a ${description.type} workflow, not an eval`);
    if (description.status.name === 'COMPLETED')
      return c.json({ status: 'completed', report: (await handle.result()) as unknown as Record<string, never> }, 200);
    if (description.status.name !== 'RUNNING') return c.json({ status: description.status.name.toLowerCase() }, 200);
    return c.json(
      { status: 'running', progress: (await handle.query(evalProgressQuery, 0)) as unknown as Record<string, never> },
      200,
    );
  });

  app.openapi(experimentRoute, async (c) => {
    const { id } = c.req.valid('param');
    const { limit } = c.req.valid('query');
    const stats = await experimentOr404(() =>
      experimentStats(ctx.baton.client, ctx.baton.experiments, id, limit !== undefined ? { limit } : {}),
    );
    return c.json(stats as unknown as Record<string, never>, 200);
  });

  app.openapi(stopRoute, async (c) => {
    const { id } = c.req.valid('param');
    const { winner, reason } = c.req.valid('json');
    const state = await experimentOr404(() =>
      ctx.baton.experiments.stop(id, { winner, by: c.get('identity').name, ...(reason ? { reason } : {}) }),
    );
    return c.json(state as unknown as Record<string, never>, 200);
  });

  app.openapi(statsRoute, async (c) => {
    const q = c.req.valid('query');
    const since = q.since !== undefined ? sinceOf(q.since) : undefined;
    try {
      const stats = await agentEdgeStats(ctx.baton.client, {
        ...(since ? { since } : {}),
        ...(q.query ? { query: q.query } : {}),
        ...(q.limit ? { limit: q.limit } : {}),
      });
      return c.json(stats as unknown as Record<string, never>, 200);
    } catch (err) {
      if (err instanceof UserError)
        throw new HttpProblem(400, 'Invalid query', err.message, [{ path: 'query', message: err.message }]);
      throw err;
    }
  });

  app.openapi(datasetRoute, async (c) => {
    if (!datasets)
      throw new HttpProblem(
        404,
        'No datasets',
        'this service keeps no datasets: serve it with a dataset folder (baton serve --dataset-dir <dir>, or createBatonApp({datasets: {dir}}))',
      );
    const { id } = c.req.valid('param');
    const { verdict, dataset } = c.req.valid('json');
    await mustBeChain(ctx, id);
    const file = path.join(datasets.dir, `${dataset}.jsonl`);
    const line = await lineFromChain(ctx.baton.client, id, verdict);
    const { line: at } = appendToDataset(file, line);
    return c.json({ dataset, line: at, verdict, chainId: id }, 201);
  });
}

/** `work`, with an experiment that does not exist answered 404 and other refusals 409. */
async function experimentOr404<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ExperimentError) {
      const missing = err.problems.some((p) => p.startsWith('no such experiment'));
      throw new HttpProblem(missing ? 404 : 409, missing ? 'Not found' : 'Refused', err.message);
    }
    throw err;
  }
}

/** A window's start: a duration back from now. */
function sinceOf(text: string): Date {
  const ms = durationMs(text);
  if (ms === undefined)
    throw new HttpProblem(400, 'Invalid request', 'since must be a duration back from now, e.g. 30m, 1h or 7 days', [
      { path: 'since', message: `"${text.slice(0, 100)}" is not a duration` },
    ]);
  return new Date(Date.now() - ms);
}
