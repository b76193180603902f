/**
 * Every approval waiting across chains, as `baton.pending()` lists it: found by a visibility query
 * (no workflow scan), each with the chain it waits in, and a tool call's sensitive arguments
 * redacted unless the viewer may see them (the chain's team snapshot says which are).
 */
import type { Client } from '@temporalio/client';
import type { ParentLink } from '../common/run';
import { BatonStatusAttribute, BatonTenant, PARENT_MEMO, PENDING_MEMO, TEAM_MEMO } from '../common/messages';
import { BatonStatus, type PendingApproval } from '../common/types';
import { redactPendingApproval } from '../common/sensitive';
import { type PendingHandoff, toPendingHandoff, type WaitingApproval } from './pending';
import { mayDecideAs, type TeamSnapshots } from './sensitive';

/** Options of `baton.pending()`. */
export interface PendingOptions {
  /**
   * Who sees the real values of tool calls' sensitive arguments: an approver's name (the calls
   * they may decide: among the policy's `approvers`, or it names none), or `true` for every call
   * (a service that redacts per caller itself, with `redactPending`).
   * @default nobody: every sensitive argument shows as `"[redacted]"`
   */
  reveal?: string | true;
  /** Only the chains of this tenant; `null` only chains without a tenant. @default every chain */
  tenant?: string | null;
}

/**
 * Every handoff and tool call waiting for approval across all chains, oldest first. `teams` gives
 * the client's cache of team snapshots (read once per run) when a tool call needs one.
 */
export async function listPending(
  client: Client,
  teams: () => TeamSnapshots,
  options: PendingOptions = {},
): Promise<PendingHandoff[]> {
  const now = Date.now();
  const found: WaitingApproval[] = [];
  const query = `${BatonStatusAttribute.name} = "${BatonStatus.AWAITING_APPROVAL}" AND ExecutionStatus = "Running"${tenantClause(options.tenant)}`;
  for await (const wf of client.workflow.list({ query })) {
    const tenant = wf.typedSearchAttributes.get(BatonTenant);
    if (!inTenant(tenant, options.tenant)) continue;
    const waiting = (wf.memo?.[PENDING_MEMO] ?? []) as PendingApproval[];
    const parent = wf.memo?.[PARENT_MEMO] as ParentLink | undefined;
    const team = (wf.memo?.[TEAM_MEMO] as { id?: unknown } | undefined)?.id;
    for (const p of waiting) {
      found.push({
        ...p,
        workflowId: wf.workflowId,
        runId: wf.runId,
        ageMs: now - Date.parse(p.requestedAt),
        ...(parent ? { parentWorkflowId: parent.workflowId, rootWorkflowId: parent.rootWorkflowId } : {}),
        ...(typeof team === 'string' ? { team } : {}),
        ...(tenant !== undefined ? { tenant } : {}),
      });
    }
  }
  const shown = await Promise.all(
    found.map(async (p) => toPendingHandoff(await withSensitivity(teams, p, options.reveal))),
  );
  return shown.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
}

/** `p` with its tool call's sensitive arguments redacted, unless `reveal` may see them. */
export async function withSensitivity(
  teams: () => TeamSnapshots,
  p: WaitingApproval,
  reveal: PendingOptions['reveal'],
): Promise<WaitingApproval> {
  if (!p.tool) return p;
  const team = await teams().of(p.workflowId, p.runId);
  const spec = team.of(p.from, p.tool.name);
  if (!spec?.arguments) return p;
  const revealed = reveal === true || (typeof reveal === 'string' && reveal !== '' && mayDecideAs(reveal, p));
  const sensitive = { arguments: spec.arguments, revealed };
  return revealed ? { ...p, sensitive } : { ...redactPendingApproval(p, spec), sensitive };
}

/**
 * The visibility clause of a tenant filter: a tenant's chains by `BatonTenant`; none for chains
 * without a tenant (which {@link inTenant} picks, so a namespace without `BatonTenant` still lists).
 */
export function tenantClause(tenant: string | null | undefined): string {
  return typeof tenant === 'string' ? ` AND ${BatonTenant.name} = ${JSON.stringify(tenant)}` : '';
}

/** Whether a chain of `tenant` passes the filter `wanted` (`undefined`: every chain, `null`: those without a tenant). */
export function inTenant(tenant: string | undefined, wanted: string | null | undefined): boolean {
  return wanted === undefined || (tenant ?? null) === wanted;
}
