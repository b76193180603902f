/**
 * The handoff activities: a handoff's `onHandoff` check, and the team's `agent_handoff` listeners
 * run after a handoff (at least once).
 */
import { Context } from '@temporalio/activity';
import type { BatonHooks, HandoffHookContext } from '../src/agents/hooks';
import type { Team } from '../src/agents/team';
import type { RecordHandoffInput } from '../src/common/run';
import type { CheckHandoffInput, CheckHandoffResult } from '../src/common/team';
import type { TeamNeed } from '../src/common/version';

/** The handoff activities of a worker whose team is `team`, with its `agent_handoff` listeners. */
export function handoffActivities(
  team: Team,
  handoffListeners: NonNullable<BatonHooks['agent_handoff']>,
  refuseMismatch: (step: string, need: TeamNeed | undefined) => void,
) {
  return {
    /** A handoff's `onHandoff` check: a reason when it vetoes. */
    async checkHandoff(input: CheckHandoffInput): Promise<CheckHandoffResult> {
      refuseMismatch('checkHandoff', input.team);
      const ctx = Context.current();
      const check = team.handoffDeclaration(input.from, input.to)?.onHandoff;
      if (!check) return {};
      const verdict = await check({ ...input, workflowId: ctx.info.workflowExecution?.workflowId ?? '' });
      if (verdict === false) return { veto: `onHandoff refused the handoff to ${input.to}` };
      if (typeof verdict === 'string') return { veto: verdict };
      const veto = (verdict as { veto?: unknown } | undefined)?.veto;
      return typeof veto === 'string' ? { veto } : {};
    },

    /** Runs the `agent_handoff` listeners after a handoff. */
    async runHandoffHooks(input: RecordHandoffInput): Promise<void> {
      return runListeners(input);
    },

    /** The hook activity of chains started before handoffs were recorded in the memo. */
    async recordHandoff(input: RecordHandoffInput): Promise<void> {
      return runListeners(input);
    },
  };

  async function runListeners({ handoff, index }: RecordHandoffInput): Promise<void> {
    const ctx = Context.current();
    const agent = team.get(handoff.from);
    if (!agent) return;
    const hookContext: HandoffHookContext = {
      workflowId: ctx.info.workflowExecution?.workflowId ?? '',
      runId: ctx.info.workflowExecution?.runId ?? '',
      taskQueue: ctx.info.taskQueue,
      attempt: ctx.info.attempt,
      index,
    };
    for (const listener of handoffListeners) await listener(hookContext, agent, handoff);
  }
}
