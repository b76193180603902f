/**
 * A chain as `GET /v1/runs/{id}` shows it, and as the protocols beside the REST API (A2A, MCP) read
 * it: its audit, with the live status and agent from visibility, and what waits in it as the
 * caller may see it.
 */
import type { z } from '@hono/zod-openapi';
import type { HandoffRunInput } from '../common/run';
import type { PendingApproval } from '../common/approvals';
import {
  BatonAgent,
  BatonStatusAttribute,
  BatonTenant,
  PENDING_MEMO,
  STARTED_BY_MEMO,
  WorkflowType,
} from '../common/messages';
import { redactPendingApproval, scrub, sensitiveValues, TeamRedaction } from '../common/sensitive';
import { mayDecide, type Identity } from './auth';
import type { ServiceContext } from './context';
import { notA } from './kinds';
import { HttpProblem } from './problems';
import { usageOf } from './runUsage';
import type { RunSchema } from './schemas';
import { isCallersTenant } from './tenancy';

/**
 * A chain as `GET /v1/runs/:id` shows it: from its audit, with the live status and agent from
 * visibility; a waiting tool call's sensitive arguments redacted unless `identity` may decide it.
 */
export async function runView(
  ctx: ServiceContext,
  workflowId: string,
  identity: Identity,
): Promise<z.infer<typeof RunSchema>> {
  const description = await ctx.baton.client.workflow.getHandle(workflowId).describe();
  // Another tenant's chain is one the caller cannot know of: the same answer as no chain, from every surface.
  if (!isCallersTenant(identity, description.typedSearchAttributes.get(BatonTenant)))
    throw new HttpProblem(404, 'Not found', `no chain ${workflowId}`);
  if (description.type !== WorkflowType.HANDOFF_RUN) throw notA('chain', workflowId, description.type);
  const chain = await ctx.baton.audit(workflowId);
  // A chain whose last run read continued as new runs on in the next.
  const running = chain.status === 'running' || chain.status === 'continued_as_new';
  const status = running ? (description.typedSearchAttributes.get(BatonStatusAttribute) ?? 'running') : chain.status;
  const currentAgent = running
    ? description.typedSearchAttributes.get(BatonAgent)
    : (chain.result?.finalAgent ?? chain.handoffs.at(-1)?.to ?? chain.input?.agent);
  const { resume: _resume, ...input } = chain.input ?? ({} as Partial<HandoffRunInput>);
  const waiting = running ? ((description.memo?.[PENDING_MEMO] ?? []) as PendingApproval[]) : [];
  const team = new TeamRedaction(chain.team);
  // The request may repeat a waiting call's sensitive values: hidden from those who may not see the call's arguments.
  const hidden = waiting.flatMap((p) =>
    p.tool && !mayDecide(identity, p.approvers) ? sensitiveValues(p.tool.arguments, team.of(p.from, p.tool.name)) : [],
  );
  if (typeof input.input === 'string') input.input = scrub(input.input, hidden);
  return {
    workflowId,
    runId: description.runId,
    status,
    ...(currentAgent ? { currentAgent } : {}),
    ...(chain.team?.version ? { team: chain.team.version.id } : {}),
    ...(chain.startedAt ? { startedAt: chain.startedAt } : {}),
    ...(chain.closedAt ? { closedAt: chain.closedAt } : {}),
    ...(chain.input ? { input } : {}),
    ...(typeof description.memo?.[STARTED_BY_MEMO] === 'string'
      ? { startedBy: description.memo[STARTED_BY_MEMO] }
      : {}),
    chain: chain.handoffs as never,
    usage: chain.result?.usage ?? usageOf(chain),
    pendingApprovals: waitingAsSeenBy(identity, waiting, team),
    ...(chain.result ? { output: chain.result.output, finalAgent: chain.result.finalAgent } : {}),
    ...(chain.failure ? { error: chain.failure } : {}),
  };
}

/** The approvals a chain's memo lists, as `identity` may see them. */
function waitingAsSeenBy(
  identity: Identity,
  waiting: PendingApproval[],
  team: TeamRedaction,
): Record<string, unknown>[] {
  return waiting.map(
    (p) =>
      (p.tool && !mayDecide(identity, p.approvers)
        ? redactPendingApproval(p, team.of(p.from, p.tool.name))
        : p) as unknown as Record<string, unknown>,
  );
}
