/** `--tenant <id>`: the tenant a command starts into or lists (docs/operating.md, Tenants). */
import { TENANT_ID } from '../common/tenant';
import { UsageError } from './args';

/** The flag, for `parse`. */
export const TENANT_FLAG = { tenant: { type: 'string' } } as const;

/** The tenant `--tenant` names, checked; `undefined` without the flag. */
export function tenantFromFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!TENANT_ID.test(value))
    throw new UsageError(
      `--tenant must be a tenant id of 1-64 letters, digits, ".", "_" or "-", got ${JSON.stringify(value)}`,
    );
  return value;
}
