/**
 * Tenants: a chain may belong to one tenant (the run option `tenant`). Its workflow id begins
 * `<tenant>/`, so the payload codec (which sees only workflow ids) picks the tenant's key, and its
 * specialists' ids (`<parent id>/<agent>-…`) keep the tenant. The `BatonTenant` search attribute
 * names it, so the service, the CLI and the `temporal` CLI list a tenant's chains.
 *
 * Workflow-safe: no I/O.
 */
import { shown, type Check } from './check';
import { BatonTenant } from './searchAttributes';

/** What a tenant id may be: letters, digits, `.`, `_`, `-`; 1 to 64 (no `/`, which ends the id's tenant part). */
export const TENANT_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Problems with a tenant id. */
export const tenantCheck: Check<string> = (v, key) =>
  typeof v === 'string' && TENANT_ID.test(v)
    ? []
    : [`"${key}" must be a tenant id of 1-64 letters, digits, ".", "_" or "-", got ${shown(v)}`];

/** The prefix of every workflow id of `tenant`'s chains and conversations. */
export function tenantPrefix(tenant: string): string {
  return `${tenant}/`;
}

/** The tenant a workflow id names (its part before the first `/`, when that is a tenant id); `undefined` for none. */
export function tenantOfWorkflowId(workflowId: string | undefined): string | undefined {
  const slash = workflowId?.indexOf('/') ?? -1;
  if (!workflowId || slash <= 0) return undefined;
  const head = workflowId.slice(0, slash);
  return TENANT_ID.test(head) ? head : undefined;
}

/** Why `workflowId` cannot be a chain of `tenant`; `undefined` when it can. */
export function tenantIdProblem(tenant: string, workflowId: string): string | undefined {
  return workflowId.startsWith(tenantPrefix(tenant)) && workflowId.length > tenantPrefix(tenant).length
    ? undefined
    : `a chain of tenant "${tenant}" has a workflow id that begins "${tenantPrefix(tenant)}" (so its payloads are encrypted with the tenant's key), got ${shown(workflowId)}`;
}

/** The `BatonTenant` search attribute a start of `tenant`'s chain is given (none without a tenant). */
export function tenantSearchAttribute(tenant: string | undefined): { key: typeof BatonTenant; value: string }[] {
  return tenant !== undefined ? [{ key: BatonTenant, value: tenant }] : [];
}
