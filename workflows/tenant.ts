/**
 * A chain of a tenant keeps to it: its workflow id begins `<tenant>/` (checked when it starts, for
 * every client, so the codec picks the tenant's key), it writes `BatonTenant` when its start did not
 * (a start from the `temporal` CLI or another SDK), and a run that continues as new carries it.
 */
import { workflowInfo } from '@temporalio/workflow';
import { InvalidRunInputError } from '../src/common/errors';
import { BatonTenant } from '../src/common/messages';
import { Patches } from '../src/common/patches';
import { tenantIdProblem } from '../src/common/tenant';
import { hasPatch } from './patches';
import { upsertAttributes } from './searchAttributes';

/** Check and record the tenant of a run whose options name one; nothing for a run without. */
export function enterTenant(tenant: string | undefined): void {
  if (tenant === undefined || !hasPatch(Patches.TENANTS)) return;
  const info = workflowInfo();
  const problem = tenantIdProblem(tenant, info.workflowId);
  if (problem) throw new InvalidRunInputError([`"options.tenant": ${problem}`]);
  if (info.typedSearchAttributes.get(BatonTenant) !== tenant) upsertAttributes([{ key: BatonTenant, value: tenant }]);
}

/** The `BatonTenant` search attribute of this run, to carry into the next. */
export function tenantAttribute(): { key: typeof BatonTenant; value: string }[] {
  const value = workflowInfo().typedSearchAttributes.get(BatonTenant);
  return typeof value === 'string' ? [{ key: BatonTenant, value }] : [];
}
