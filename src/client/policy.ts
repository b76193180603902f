/**
 * A team's approval policies against the chains and conversations running on a task queue: which
 * run under a looser policy than the team's (`baton team diff --running`, `baton pending --team`),
 * and applying the team's policy to them (`baton team apply-policy`), each by the `tightenPolicy`
 * update, which every chain judges itself: it applies what only tightens and refuses the rest.
 */
import { type Client, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  policyLoosenings,
  policyTeam,
  policyTightenings,
  type PolicyUpdateResult,
  type TeamPolicy,
  teamPolicyOf,
} from '../common/authority/policyUpdate';
import { UserError } from '../common/errors';
import { DEFAULT_TASK_QUEUE, policyQuery, tightenPolicyUpdate, WorkflowType } from '../common/messages';
import type { TeamSpec } from '../common/team';
import { whileWorkflowTaskFails } from './taskFailing';

/** Where to look, and which chains. */
export interface PolicyScanOptions {
  /** @default "baton" */
  taskQueue?: string;
  /** Only these chains or conversations (workflow ids); every running one on the queue when absent. */
  workflowIds?: string[];
}

/** A running chain or conversation weighed against a team's policy. */
export interface PolicyStanding {
  workflowId: string;
  workflowType: string;
  /** The policy version the chain runs under (`support@v1`). */
  runsUnder: string;
  /** What the team's policy would tighten in it: non-empty means it runs under a looser policy. */
  looser: string[];
  /** What the team's policy would loosen in it (an update with it is refused for these). */
  tighter: string[];
  /** The chain could not be asked (no worker answered its query). */
  unreachable?: string;
}

/** Options of `applyTeamPolicy`. */
export interface ApplyPolicyOptions extends PolicyScanOptions {
  /** Who applies it, recorded in each chain's history. */
  appliedBy: string;
  reason?: string;
}

/** What applying a policy did to one chain. */
export interface PolicyApplied {
  workflowId: string;
  outcome: 'tightened' | 'unchanged' | 'refused' | 'unreachable';
  result?: PolicyUpdateResult;
  /** Why it was refused (each thing that would loosen) or could not be reached. */
  problems?: string[];
}

/** How many chains are asked at once. */
const CONCURRENCY = 8;

/** Every running chain and conversation on the queue (or those named), weighed against `team`'s policy. */
export async function policyStandings(
  client: Client,
  team: TeamSpec,
  options: PolicyScanOptions = {},
): Promise<PolicyStanding[]> {
  const policy = teamPolicyOf(team);
  const running = await runningChains(client, options);
  return mapLimited(running, async ({ workflowId, workflowType }) => {
    try {
      const chain = await client.workflow.getHandle(workflowId).query(policyQuery);
      const own = policyTeam(chain);
      return {
        workflowId,
        workflowType,
        runsUnder: chain.version,
        looser: policyTightenings(own, chain.runApprovals, policy),
        tighter: policyLoosenings(own, chain.runApprovals, policy),
      };
    } catch (err) {
      return {
        workflowId,
        workflowType,
        runsUnder: '(unknown)',
        looser: [],
        tighter: [],
        unreachable: (err as Error).message,
      };
    }
  });
}

/** Apply `team`'s approval policies to every running chain and conversation on the queue that runs under a looser one. */
export async function applyTeamPolicy(
  client: Client,
  team: TeamSpec,
  options: ApplyPolicyOptions,
): Promise<PolicyApplied[]> {
  if (typeof options.appliedBy !== 'string' || options.appliedBy.trim() === '')
    throw new UserError("appliedBy must name who applies the policy (it is recorded in each chain's history)");
  const policy: TeamPolicy = teamPolicyOf(team);
  const standings = await policyStandings(client, team, options);
  return mapLimited(standings, async (s): Promise<PolicyApplied> => {
    if (s.unreachable) return { workflowId: s.workflowId, outcome: 'unreachable', problems: [s.unreachable] };
    if (s.looser.length === 0) return { workflowId: s.workflowId, outcome: 'unchanged' };
    try {
      const result = await whileWorkflowTaskFails(() =>
        client.workflow.getHandle(s.workflowId).executeUpdate(tightenPolicyUpdate, {
          args: [
            {
              policy,
              appliedBy: options.appliedBy,
              ...(options.reason !== undefined ? { reason: options.reason } : {}),
            },
          ],
        }),
      );
      return { workflowId: s.workflowId, outcome: result.tightened.length > 0 ? 'tightened' : 'unchanged', result };
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
        const problems = (err.cause.details?.[0] as { problems?: string[] } | undefined)?.problems ?? [
          err.cause.message,
        ];
        return { workflowId: s.workflowId, outcome: 'refused', problems };
      }
      return { workflowId: s.workflowId, outcome: 'unreachable', problems: [(err as Error).message] };
    }
  });
}

async function runningChains(
  client: Client,
  options: PolicyScanOptions,
): Promise<{ workflowId: string; workflowType: string }[]> {
  const queue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  const types = `(WorkflowType = '${WorkflowType.HANDOFF_RUN}' OR WorkflowType = '${WorkflowType.CONVERSATION}')`;
  const query = `TaskQueue = '${queue.replace(/'/g, "\\'")}' AND ExecutionStatus = 'Running' AND ${types}`;
  const found: { workflowId: string; workflowType: string }[] = [];
  for await (const wf of client.workflow.list({ query, pageSize: 1000 })) {
    if (!options.workflowIds || options.workflowIds.includes(wf.workflowId))
      found.push({ workflowId: wf.workflowId, workflowType: wf.type });
  }
  return found;
}

async function mapLimited<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, lane));
  return out;
}
