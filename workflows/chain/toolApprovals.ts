/**
 * Approval of tool calls: a call whose tool needs approval (`needsApproval`, its conditions on the
 * arguments weighed here) waits at the approval desk like a handoff — same signals, update,
 * waiting list, timeouts and approvers — and runs only once approved, with the arguments an
 * approver may have edited. A rejection or an expired wait is the call's answer to the model.
 *
 * People are asked only about calls that can run, and only once per call: a call whose arguments
 * are not JSON or do not fit the tool's parameters is answered as invalid before anyone is asked;
 * the same call again (same tool, same arguments) in the chain is not asked again. A rejection
 * stands for it (the model is told it was rejected), and an approved call runs once: the model is
 * told it ran already. A chain recorded before these checks asks as it did then.
 */
import { ApprovalTimeoutError } from '../../src/common/errors';
import { approvalNeeded } from '../../src/common/controls';
import { rejectionJson } from '../../src/common/approvalReasons';
import type { ApprovalRecord } from '../../src/common/approvals';
import { schemaProblems } from '../../src/common/jsonSchema';
import { Patches } from '../../src/common/patches';
import type { ModelResponse, ToolCall } from '../../src/common/model';
import type { AgentSpec } from '../../src/common/team';
import { handOverDue } from './handOver';
import type { ChainRun } from './step';
import { callHash, toolCallKey } from './turn';

/** What becomes of a call that needed approval: it runs (maybe with edited arguments, `note` telling the model), or it is answered. */
export type Gated = { kind: 'run'; call: ToolCall; note?: string } | { kind: 'answer'; content: string };

/** The calls still wait for approval and the run is to continue as new first (`baton-inbox-bounds`). */
export const PAUSED = 'paused' as const;

/** A call put to people, and the calls of the turn that are the same call. */
interface Asked {
  call: ToolCall;
  id: string;
  same: ToolCall[];
}

/**
 * The calls among `calls` that need approval, checked, put in front of people and waited for, in
 * the model's order; by call (providers may give calls empty or repeated ids). In runs with the
 * `baton-inbox-bounds` patch the wait continues as new before Temporal's limits ({@link PAUSED}):
 * the turn is carried (`openTools`), and the next run waits on the same approvals.
 */
export async function gateToolCalls(
  run: ChainRun,
  agent: AgentSpec,
  calls: ToolCall[],
  response: ModelResponse,
): Promise<Map<ToolCall, Gated> | typeof PAUSED> {
  const { desk, chain } = run;
  // The approvals this turn asked for before the run continued as new, by the call's place in the answer.
  const place = (call: ToolCall) => String(response.toolCalls.indexOf(call));
  const carriedAsk = chain.state.openTools?.response === response ? chain.state.openTools.asked : {};
  const gated = new Map<ToolCall, Gated>();
  if (!chain.state.controls || !agent.toolApprovals) return gated;
  const needing = calls.filter((call) => {
    const spec = agent.toolApprovals?.[call.name];
    if (spec === undefined || !approvalNeeded(spec, call.arguments)) return false;
    // A decision carried from the run this one resumes (a replay, a migration) stands: nobody is asked twice.
    const carried = chain.state.decidedCalls?.[call.id];
    if (carried && carried.callHash === callHash(call)) {
      gated.set(call, outcomeOf(agent, call, carried.record.handoffId, carried.record));
      return false;
    }
    return true;
  });
  if (needing.length === 0) return gated;
  const checks = run.effects.patched(Patches.TOOL_APPROVAL_CHECKS);
  const asked = new Map<string, Asked>();
  for (const call of needing) {
    const key = toolCallKey(call);
    if (checks) {
      const invalid = invalidArguments(agent, call);
      if (invalid !== undefined) {
        gated.set(call, { kind: 'answer', content: invalid });
        continue;
      }
      const askedBeforeHandOver = Object.hasOwn(carriedAsk, place(call)) ? carriedAsk[place(call)] : undefined;
      if (askedBeforeHandOver !== undefined && !asked.has(key)) {
        asked.set(key, { call, id: askedBeforeHandOver, same: [] });
        continue;
      }
      const earlier = earlierDecision(run, key);
      if (earlier) {
        gated.set(call, { kind: 'answer', content: askedBefore(call, earlier, false) });
        continue;
      }
      const same = asked.get(key);
      if (same) {
        same.same.push(call);
        continue;
      }
    }
    const tool = { name: call.name, arguments: call.arguments, toolCallId: call.id, callHash: callHash(call) };
    const id = desk.open(
      { from: agent.id, to: `tool:${call.name}`, message: `${call.name}(${call.arguments})`, tool },
      agent.toolApprovals[call.name]!,
    ).handoffId;
    asked.set(checks ? key : `${asked.size}`, { call, id, same: [] });
  }
  if (desk.inboxBounds && asked.size > 0)
    chain.apply({
      type: 'tools_waiting',
      open: { response, asked: Object.fromEntries([...asked.values()].map((a) => [place(a.call), a.id])) },
    });
  // Older runs wait without continuing as new: the turn's other calls wait with it.
  const pause = desk.inboxBounds ? () => handOverDue(run) : () => false;
  for (const { call, id, same } of asked.values()) {
    const record = await desk.wait(id, pause);
    if (!record) return PAUSED;
    gated.set(call, outcomeOf(agent, call, id, record));
    for (const again of same) gated.set(again, { kind: 'answer', content: askedBefore(again, record, true) });
  }
  return gated;
}

/** Why the call cannot run as the model wrote it (what the model is told), or `undefined` when its arguments fit the tool. */
function invalidArguments(agent: AgentSpec, call: ToolCall): string | undefined {
  const tool = agent.tools.find((t) => t.name === call.name);
  let args: unknown;
  try {
    // An empty text is no arguments, as the tool reads it.
    args = JSON.parse(call.arguments.trim() || '{}');
  } catch {
    return `Not run: the arguments of ${call.name} are not valid JSON (${clip(call.arguments)}), so nobody was asked to approve the call. Call ${call.name} again with a JSON object that matches its parameters.`;
  }
  const problems = tool ? schemaProblems(tool.parameters, args) : [];
  if (problems.length === 0) return undefined;
  return `Not run: the arguments of ${call.name} do not fit its parameters (${problems.join('; ')}), so nobody was asked to approve the call. Call ${call.name} again with arguments that match its parameters.`;
}

/** How people decided the same call earlier in the chain, when they did. */
function earlierDecision(run: ChainRun, key: string): ApprovalRecord | undefined {
  const { approvals } = run.chain.state;
  const ids = Object.entries(approvals.toolCalls ?? {}).flatMap(([id, k]) => (k === key ? [id] : []));
  return approvals.decided.filter((d) => ids.includes(d.handoffId)).at(-1);
}

/** What the model is told about a call people decided already: earlier in the chain, or (`inTurn`) as an identical call of this turn. */
function askedBefore(call: ToolCall, r: ApprovalRecord, inTurn: boolean): string {
  const when = inTurn ? 'in this turn' : 'earlier in this chain';
  if (r.outcome === 'rejected' || (r.outcome === 'timed_out' && r.onTimeout !== 'approve')) {
    const how =
      r.outcome === 'rejected'
        ? `${r.approver} rejected it${r.reason ? `: ${r.reason}` : ''}`
        : 'nobody approved it in time';
    return `Not run: the same call to ${call.name} was put to people ${when} and ${how}. It is not asked again; do not make it again. Tell the user, or find another way.`;
  }
  const by = r.outcome === 'approved' ? `approved by ${r.approver}` : 'approved when nobody decided in time';
  if (inTurn)
    return `Not run: this turn makes the same call to ${call.name} twice; it was ${by} and runs once, as the first of them.`;
  return `Not run again: the same call to ${call.name} was ${by} earlier in this chain and ran then; an approved call runs once. Use the answer it gave then, or make a different call.`;
}

function outcomeOf(agent: AgentSpec, call: ToolCall, id: string, r: ApprovalRecord): Gated {
  if (r.outcome === 'approved') {
    if (r.editedArguments === undefined) return { kind: 'run', call };
    return {
      kind: 'run',
      call: { ...call, arguments: r.editedArguments },
      note: `(${r.approver} approved this call with changed arguments: ${r.editedArguments})`,
    };
  }
  if (r.outcome === 'rejected') {
    const data = rejectionJson(r);
    if (data !== undefined)
      return {
        kind: 'answer',
        content: `Not run: this call to ${call.name} was rejected. Rejection: ${data}. Do not make the same call again; tell the user, or find another way.`,
      };
    return {
      kind: 'answer',
      content: `Not run: ${r.approver} rejected this call to ${call.name}${r.reason ? `: ${r.reason}` : ''}. Do not make the same call again; tell the user, or find another way.`,
    };
  }
  if (r.onTimeout === 'approve') return { kind: 'run', call };
  if (r.onTimeout === 'fail') throw new ApprovalTimeoutError(id, agent.id, `tool:${call.name}`, String(r.timeout));
  return {
    kind: 'answer',
    content: `Not run: nobody approved this call to ${call.name} in time (${String(r.timeout)}).`,
  };
}

function clip(text: string, n = 200): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}
