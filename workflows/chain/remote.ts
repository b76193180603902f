/**
 * Delegation to a remote agent, an agent of another team reached over A2A: the task goes out in
 * `callRemoteAgent` activities, whose results history records (the answer, a wait for someone at
 * the remote, the end of one), and the answer comes back to the agent that delegated as a local
 * specialist's does. No A2A reaches the workflow except as those recorded results.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { DelegationRequest } from '../../src/common/delegation';
import { RemoteAgentError } from '../../src/common/errors';
import { REMOTE_WAITS_MEMO } from '../../src/common/messages';
import type { ToolCall } from '../../src/common/model';
import { remoteMessageId, type RemoteCallInput, type RemoteWaitState } from '../../src/common/remote';
import { BatonStatus, type Usage } from '../../src/common/run';
import type { DelegationOutcome } from './effects';
import type { ChainRun } from './step';

/** A task for a remote agent: the delegation call, its request, its id in the chain and the text the remote reads. */
export interface RemoteJob {
  call: ToolCall;
  request: DelegationRequest;
  workflowId: string;
  text: string;
}

/** A remote task that waits for someone at the remote agent, as the chain's memo lists it. */
export interface RemoteWait {
  remote: string;
  taskId: string;
  state: RemoteWaitState;
  message: string;
}

const NO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, toolCalls: 0 };

/**
 * The remote tasks of one turn's delegations that wait at their remote agents: on the chain's memo
 * (`batonRemoteWaits`), and the chain `awaiting_approval` while any does.
 */
export class RemoteWaits {
  private readonly waits = new Map<string, RemoteWait>();

  constructor(private readonly run: ChainRun) {}

  /** The delegation `key` waits at its remote agent (`wait`), or no longer does. */
  note(key: string, wait: RemoteWait | undefined): void {
    if (wait) this.waits.set(key, wait);
    else if (!this.waits.delete(key)) return;
    const { effects, chain } = this.run;
    effects.publish({ [REMOTE_WAITS_MEMO]: [...this.waits.values()] });
    effects.setStatus(
      this.waits.size > 0 || chain.state.approvals.pending.length > 0
        ? BatonStatus.AWAITING_APPROVAL
        : BatonStatus.RUNNING,
    );
  }
}

/**
 * Send `job` to its remote agent and wait for its answer: each wait there is recorded and noted
 * in `waits` (not a failure), and the call goes on waiting for the same task. A task that failed,
 * was rejected or cancelled there, a refusal, and calls that kept failing end the delegation as
 * failed, with the `RemoteAgentError` in history; a cancellation or a team mismatch ends the chain.
 */
export async function delegateRemote(
  run: ChainRun,
  job: RemoteJob,
  waits: RemoteWaits,
  timeoutMs: number | undefined,
): Promise<DelegationOutcome> {
  const { effects, chain } = run;
  const to = job.request.to;
  if (!effects.callRemoteAgent) return { ok: false, reason: `this workflow cannot call remote agents such as ${to}` };
  const deadline = timeoutMs !== undefined ? effects.now() + timeoutMs : undefined;
  const base: RemoteCallInput = {
    remote: to,
    from: job.request.from,
    messageId: remoteMessageId(job.workflowId, job.call.id),
    contextId: chain.state.parent?.rootWorkflowId ?? effects.workflowId,
    text: job.text,
  };
  let taskId: string | undefined;
  let waiting: RemoteWaitState | undefined;
  try {
    for (;;) {
      const left = deadline !== undefined ? Math.max(1_000, deadline - effects.now()) : undefined;
      const r = await effects.callRemoteAgent(
        { ...base, ...(taskId ? { taskId } : {}), ...(waiting ? { waiting } : {}) },
        chain.state.options,
        left,
      );
      if (r.taskId) taskId = r.taskId;
      if (r.kind === 'completed') {
        waits.note(job.workflowId, undefined);
        return { ok: true, result: { output: r.output, finalAgent: to, handoffChain: [], usage: { ...NO_USAGE } } };
      }
      waiting = r.kind === 'waiting' ? r.state : undefined;
      waits.note(
        job.workflowId,
        r.kind === 'waiting' ? { remote: to, taskId: r.taskId, state: r.state, message: r.message } : undefined,
      );
    }
  } catch (err) {
    // A cancellation or a team mismatch ends the chain: it issues no more commands (they would follow its end).
    const failed = remoteFailure(err);
    if (failed === undefined) throw err;
    waits.note(job.workflowId, undefined);
    return { ok: false, reason: failed };
  }
}

/** Why a remote delegation failed, when `err` is its remote agent's failure (anything else ends the chain). */
function remoteFailure(err: unknown): string | undefined {
  if (err instanceof RemoteAgentError) return `${err.name}: ${err.message}`;
  if (err instanceof ApplicationFailure && err.type === RemoteAgentError.name) return `${err.type}: ${err.message}`;
  return undefined;
}
