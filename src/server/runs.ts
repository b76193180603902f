/**
 * Runs: start one (idempotently with an `Idempotency-Key`), read where it is, its audit, its
 * events as they happen, and replay a failed one.
 */
import { displayText } from '../common/display';
import { createRoute, z } from '@hono/zod-openapi';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { formatTimeline, toMermaid } from '../audit/format';
import { InvalidRunInputError } from '../common/errors';
import { validateRunInput, overrideProblems } from '../common/input';
import type { HandoffRunInput } from '../common/run';
import type { RunOptions } from '../common/options';
import type { StartOptions } from '../client/chainStart';
import { ExperimentError } from '../client/experiments';
import { secured } from './access';
import { Permission, requirePermission, type Identity } from './auth';
import type { ServiceApp, ServiceContext } from './context';
import { mustBeChain } from './kinds';
import { flowSvg } from './flow';
import { jsonBody, problems } from './openapi';
import { fieldError, HttpProblem, type FieldError } from './problems';
import { derivedStart, existingRun, idempotentWorkflowId } from './runKeys';
import { runView } from './runView';
import { tenantStart, tenantWorkflowId } from './tenancy';
import {
  IdempotencyKeySchema,
  ReplaySchema,
  ReplayStartedSchema,
  RunIdParam,
  RunSchema,
  RunStartedSchema,
  StartRunSchema,
} from './schemas';

const startRoute = createRoute({
  operationId: 'startRun',
  method: 'post',
  path: '/v1/runs',
  tags: ['runs'],
  summary: 'Start a chain',
  ...secured(
    Permission.START,
    'With an Idempotency-Key, a retried request (same identity, same key, same body) answers with the run the first one started, however late. ' +
      "Without one (and without a `workflowId`), the request is its own key for the service's `idempotencyWindowMs` (10 minutes unless configured): " +
      'the same body from the same caller within it answers 200 with the chain the first one started (`created: false`) instead of starting a second one; send an Idempotency-Key of its own with each start that must be a chain of its own.',
  ),
  request: {
    headers: z.object({ 'idempotency-key': IdempotencyKeySchema.optional() }),
    body: { ...jsonBody(StartRunSchema, 'The first agent, its input, and run options'), required: true },
  },
  responses: {
    201: jsonBody(RunStartedSchema, 'Started'),
    200: jsonBody(RunStartedSchema, 'Started earlier with the same Idempotency-Key'),
    ...problems(400, 401, 403, 409, 413, 429, 503),
  },
});

const getRoute = createRoute({
  operationId: 'getRun',
  method: 'get',
  path: '/v1/runs/{id}',
  tags: ['runs'],
  summary: 'Where a chain is: status, current agent, handoffs, usage, the answer or the error',
  ...secured(Permission.READ),
  request: { params: RunIdParam },
  responses: { 200: jsonBody(RunSchema, 'The chain'), ...problems(400, 401, 403, 404, 503) },
});

const auditRoute = createRoute({
  operationId: 'getRunAudit',
  method: 'get',
  path: '/v1/runs/{id}/audit',
  tags: ['runs'],
  summary: 'The chain rebuilt from its workflow history',
  ...secured(
    Permission.READ,
    '`format=json` (default: the `baton.audit/v1` document), `timeline` (text), `mermaid` (a flowchart) or `svg` (the flow drawn).',
  ),
  request: {
    params: RunIdParam,
    query: z.object({ format: z.enum(['json', 'timeline', 'mermaid', 'svg']).optional() }),
  },
  responses: {
    200: {
      description: 'The audit',
      content: {
        'application/json': { schema: z.object({}).passthrough() },
        'text/plain': { schema: z.string() },
        'image/svg+xml': { schema: z.string() },
      },
    },
    ...problems(400, 401, 403, 404, 503),
  },
});

const replayRoute = createRoute({
  operationId: 'replayRun',
  method: 'post',
  path: '/v1/runs/{id}/replay',
  tags: ['runs'],
  summary: 'Continue a failed chain from its last good step',
  ...secured(Permission.START),
  request: {
    params: RunIdParam,
    body: { ...jsonBody(ReplaySchema, 'Where to continue from and what to change'), required: false },
  },
  responses: { 202: jsonBody(ReplayStartedSchema, 'The new run'), ...problems(400, 401, 403, 404, 409, 413, 429, 503) },
});

/** Register the run routes. */
export function runRoutes(app: ServiceApp, ctx: ServiceContext): void {
  app.openapi(startRoute, async (c) => {
    const identity = c.get('identity');
    const { workflowId, experiment, ...body } = c.req.valid('json');
    // Over Temporal's limit is refused first, whatever else is wrong with the input.
    await ctx.payloadLimit.check('The run input (agent, input, options and context)', body);
    if (ctx.agents && !ctx.agents.includes(body.agent)) {
      throw new HttpProblem(400, 'Invalid run input', `no agent "${body.agent}"`, [
        { path: 'agent', message: `"agent" must be one of ${ctx.agents.join(', ')}` },
      ]);
    }
    const input = validateStart({ ...body, options: tenantStart(identity, body.options ?? {}) });
    const key = c.req.valid('header')['idempotency-key'];
    // Without an id or a key, the request itself is the key for a while: a retried start finds its chain.
    const derived =
      workflowId === undefined && key === undefined && ctx.idempotencyWindowMs > 0
        ? await derivedStart(ctx, identity.name, input.agent, { ...body, experiment }, ctx.idempotencyWindowMs)
        : undefined;
    if (derived?.existing) return c.json({ workflowId: derived.workflowId, runId: derived.runId, created: false }, 200);
    takeStart(ctx, identity.name);
    const keyed = key !== undefined || derived !== undefined;
    const generated = derived?.workflowId ?? (key ? idempotentWorkflowId(input.agent, identity.name, key) : undefined);
    const id =
      workflowId !== undefined
        ? tenantWorkflowId(identity, workflowId, true)
        : generated !== undefined
          ? tenantWorkflowId(identity, generated, false)
          : undefined;
    const options: StartOptions = {
      ...input.options,
      // Approvers see who asked for the chain.
      startedBy: identity.name,
      ...(id ? { workflowId: id } : {}),
      ...(input.context !== undefined ? { context: input.context } : {}),
      ...(experiment !== undefined ? { experiment } : {}),
      // Temporal decides whether the key's chain exists, atomically: it refuses a second start under
      // the id while the first chain runs and after it closed, and the refusal answers with that chain.
      ...(keyed ? { workflowIdReusePolicy: 'REJECT_DUPLICATE', workflowIdConflictPolicy: 'FAIL' } : {}),
    };
    try {
      const run = await ctx.baton.start(input.agent, input.input, options);
      ctx.metrics?.runsStarted.inc({ agent: displayText(input.agent) });
      const runId = (run.handle as { firstExecutionRunId?: string }).firstExecutionRunId ?? '';
      return c.json({ workflowId: run.workflowId, runId, created: true }, 201);
    } catch (err) {
      if (err instanceof ExperimentError)
        throw new HttpProblem(400, 'Invalid run input', err.message, [
          { path: 'experiment', message: err.problems.join('; ') },
        ]);
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      const existing = keyed ? await existingRun(ctx.baton.client, id!, input) : undefined;
      if (existing) return c.json({ workflowId: id!, runId: existing, created: false }, 200);
      throw new HttpProblem(409, 'Chain exists', `a chain with the id ${id} exists already`);
    }
  });

  app.openapi(getRoute, async (c) => c.json(await runView(ctx, c.req.valid('param').id, c.get('identity')), 200));

  app.openapi(auditRoute, async (c) => {
    const { id } = c.req.valid('param');
    await mustBeChain(ctx, id);
    const chain = await ctx.baton.audit(id);
    const format = c.req.valid('query').format ?? 'json';
    if (format === 'timeline') return c.text(formatTimeline(chain), 200);
    if (format === 'mermaid') return c.text(toMermaid(chain), 200);
    if (format === 'svg') return c.body(flowSvg(chain), 200, { 'content-type': 'image/svg+xml; charset=utf-8' });
    return c.json(chain as unknown as Record<string, never>, 200);
  });

  app.openapi(replayRoute, async (c) => {
    const identity = c.get('identity');
    const id = c.req.valid('param').id;
    const parsed = ReplaySchema.safeParse(optionalJson(await c.req.text()));
    if (!parsed.success)
      throw new HttpProblem(
        400,
        'Invalid replay',
        'The replay request is not valid.',
        parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      );
    if (parsed.data.overrides) {
      await ctx.payloadLimit.check('The replay request', parsed.data.overrides);
      const bad = overrideProblems(parsed.data.overrides, ctx.agents);
      if (bad.length > 0)
        throw new HttpProblem(400, 'Invalid overrides', 'The overrides are not valid.', bad.map(fieldError));
    }
    await mustBeChain(ctx, id);
    takeStart(ctx, identity.name);
    const started = await ctx.baton.replay(id, parsed.data as Parameters<typeof ctx.baton.replay>[1]);
    return c.json(started, 202);
  });
}

/**
 * Start a chain for `identity` as `POST /v1/runs` does (limits, the agent list, the input's checks,
 * the start limiter, `startedBy`), under `workflowId`: for the protocols (A2A, MCP) beside the REST API.
 */
export async function startAs(
  ctx: ServiceContext,
  identity: Identity,
  body: { agent: string; input: string; options?: RunOptions },
  workflowId: string,
): Promise<{ workflowId: string }> {
  requirePermission(identity, Permission.START);
  await ctx.payloadLimit.check('The run input (agent, input, options and context)', body);
  if (ctx.agents && !ctx.agents.includes(body.agent)) {
    throw new HttpProblem(400, 'Invalid run input', `no agent "${body.agent}"`, [
      { path: 'agent', message: `"agent" must be one of ${ctx.agents.join(', ')}` },
    ]);
  }
  const input = validateStart({ ...body, options: tenantStart(identity, body.options ?? {}) });
  takeStart(ctx, identity.name);
  const run = await ctx.baton.start(input.agent, input.input, {
    ...input.options,
    startedBy: identity.name,
    workflowId: tenantWorkflowId(identity, workflowId, false),
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
  });
  ctx.metrics?.runsStarted.inc({ agent: displayText(input.agent) });
  return { workflowId: run.workflowId };
}

/** An optional JSON body: `{}` when empty, 400 when it is not JSON. */
function optionalJson(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpProblem(
      400,
      'Invalid replay',
      'The body is not JSON; send a JSON object {fromHandoff?, overrides?}, or no body to replay from the last good step.',
    );
  }
}

/** The run input, or 400 with each problem as a field of the request body. */
function validateStart(body: unknown): HandoffRunInput {
  try {
    return validateRunInput(body);
  } catch (err) {
    if (!(err instanceof InvalidRunInputError)) throw err;
    throw new HttpProblem(400, 'Invalid run input', 'The run input is not valid.', err.problems.map(startFieldError));
  }
}

const BODY_FIELDS = new Set(['agent', 'input', 'options', 'context', 'resume']);

/** baton names run options by their key (`"maxHandoffs" must …`); in the request they sit under `options`. */
function startFieldError(message: string): FieldError {
  const unknown = /^unknown option "([^"]+)"/.exec(message);
  if (unknown) return { path: `options.${unknown[1]}`, message };
  const { path } = fieldError(message);
  return { path: path === '' || BODY_FIELDS.has(path.split(/[.[]/)[0]!) ? path : `options.${path}`, message };
}

function takeStart(ctx: ServiceContext, identity: string): void {
  try {
    ctx.limiter.take(identity);
  } catch (err) {
    ctx.metrics?.rateLimited.inc();
    throw err;
  }
}
