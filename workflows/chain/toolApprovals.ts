/**
 * Approval of tool calls: a call whose tool needs approval (`needsApproval`, its conditions on the
 * arguments weighed here) waits at the approval desk like a handoff — same signals, update,
 * waiting list, timeouts and approvers — and runs only once approved, with the arguments an
 * approver may have edited. A rejection or an expired wait is the call's answer to the model.
 */
import { ApprovalTimeoutError } from '../../src/common/errors';
import { approvalNeeded } from '../../src/common/controls';
import type { ApprovalRecord } from '../../src/common/approvals';
import type { ToolCall } from '../../src/common/model';
import type { AgentSpec } from '../../src/common/team';
import type { ChainRun } from './step';
import { callHash } from './turn';

/** What becomes of a call that needed approval: it runs (maybe with edited arguments, `note` telling the model), or it is answered. */
export type Gated = { kind: 'run'; call: ToolCall; note?: string } | { kind: 'answer'; content: string };

/** The calls among `calls` that need approval, put in front of people and waited for, in the model's order; by call id. */
export async function gateToolCalls(run: ChainRun, agent: AgentSpec, calls: ToolCall[]): Promise<Map<string, Gated>> {
  const { desk } = run;
  const gated = new Map<string, Gated>();
  if (!run.chain.state.controls || !agent.toolApprovals) return gated;
  const waiting = calls.flatMap((call) => {
    const spec = agent.toolApprovals?.[call.name];
    if (!spec || !approvalNeeded(spec, call.arguments)) return [];
    const tool = { name: call.name, arguments: call.arguments, toolCallId: call.id, callHash: callHash(call) };
    return [{ call, id: desk.open({ from: agent.id, to: `tool:${call.name}`, message: `${call.name}(${call.arguments})`, tool }, spec).handoffId }];
  });
  for (const { call, id } of waiting) {
    // A tool call's wait does not pause for continue-as-new: the turn's other calls wait with it.
    const record = (await desk.wait(id, () => false))!;
    gated.set(call.id, outcomeOf(agent, call, id, record));
  }
  return gated;
}

function outcomeOf(agent: AgentSpec, call: ToolCall, id: string, r: ApprovalRecord): Gated {
  if (r.outcome === 'approved') {
    if (r.editedArguments === undefined) return { kind: 'run', call };
    return { kind: 'run', call: { ...call, arguments: r.editedArguments }, note: `(${r.approver} approved this call with changed arguments: ${r.editedArguments})` };
  }
  if (r.outcome === 'rejected') {
    return { kind: 'answer', content: `Not run: ${r.approver} rejected this call to ${call.name}${r.reason ? `: ${r.reason}` : ''}. Do not make the same call again; tell the user, or find another way.` };
  }
  if (r.onTimeout === 'approve') return { kind: 'run', call };
  if (r.onTimeout === 'fail') throw new ApprovalTimeoutError(id, agent.id, `tool:${call.name}`, String(r.timeout));
  return { kind: 'answer', content: `Not run: nobody approved this call to ${call.name} in time (${String(r.timeout)}).` };
}
