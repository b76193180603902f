/**
 * A caller reads, decides and starts the chains of its own tenant only (its token's or JWT's
 * tenant; a caller without one, the chains without one). Another tenant's chain answers 404 as a
 * chain that does not exist does, so ids do not leak; a start goes into the caller's tenant, and
 * asking for another is refused.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { BatonTenant } from '../common/messages';
import { tenantPrefix } from '../common/tenant';
import type { Identity } from './auth';
import type { ServiceApp, ServiceContext } from './context';
import { HttpProblem } from './problems';

/** The tenant of workflow `id` (`null`: none), or `undefined` when there is no such workflow. */
export async function tenantOf(ctx: ServiceContext, id: string): Promise<string | null | undefined> {
  try {
    const description = await ctx.baton.client.workflow.getHandle(id).describe();
    return description.typedSearchAttributes.get(BatonTenant) ?? null;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** 404 when workflow `id` exists and belongs to a tenant other than `identity`'s (as its own 404 says, naming nothing of it). */
export async function mustBeCallersTenant(
  ctx: ServiceContext,
  identity: Identity,
  id: string,
  what = 'chain',
): Promise<void> {
  const tenant = await tenantOf(ctx, id);
  if (tenant !== undefined && tenant !== (identity.tenant ?? null))
    throw new HttpProblem(404, 'Not found', `no ${what} ${id}`);
}

/** Whether a workflow of tenant `tenant` (`null`/`undefined`: none) is the caller's to see. */
export function isCallersTenant(identity: Identity, tenant: string | null | undefined): boolean {
  return (tenant ?? null) === (identity.tenant ?? null);
}

/**
 * The run options of a start by `identity`: its tenant, or 403 when they ask for another (a token
 * starts into its own tenant only, and one without a tenant into none).
 */
export function tenantStart<O extends { tenant?: string | undefined }>(identity: Identity, options: O): O {
  if (options.tenant !== undefined && options.tenant !== identity.tenant) {
    const own = identity.tenant !== undefined ? `tenant "${identity.tenant}"` : 'no tenant';
    throw new HttpProblem(
      403,
      'Forbidden',
      `${identity.name} acts for ${own} and may not start a chain of tenant "${options.tenant}"; leave "options.tenant" out (a start goes into the caller's tenant)`,
    );
  }
  return identity.tenant !== undefined ? { ...options, tenant: identity.tenant } : options;
}

/** `id` in the caller's tenant: a generated id gets the tenant's prefix; a given one must have it (400 otherwise). */
export function tenantWorkflowId(identity: Identity, id: string, given: boolean, field = 'workflowId'): string {
  if (identity.tenant === undefined) return id;
  const prefix = tenantPrefix(identity.tenant);
  if (id.startsWith(prefix)) return id;
  if (!given) return `${prefix}${id}`;
  throw new HttpProblem(
    400,
    'Invalid run input',
    `a chain of tenant "${identity.tenant}" has an id that begins "${prefix}"`,
    [{ path: field, message: `"${field}" must begin "${prefix}", got "${id}"` }],
  );
}

/** Each route on one chain or conversation (`/v1/runs/{id}…`, `/v1/conversations/{id}…`) first checks that it is the caller's tenant's. */
export function tenantRoutes(app: ServiceApp, ctx: ServiceContext): void {
  for (const [path, what] of [
    ['/v1/runs/:id', 'chain'],
    ['/v1/runs/:id/*', 'chain'],
    ['/v1/conversations/:id', 'conversation'],
    ['/v1/conversations/:id/*', 'conversation'],
  ] as const) {
    app.use(path, async (c, next) => {
      await mustBeCallersTenant(ctx, c.get('identity'), c.req.param('id'), what);
      await next();
    });
  }
}
