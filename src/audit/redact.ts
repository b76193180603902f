/**
 * The audit with the sensitive tool arguments and results of its team redacted (see
 * `src/common/sensitive.ts`): in model turns' calls, tool calls and their answers, approvals of
 * tool calls and the decisions sent for them, what a handoff's target received, and the errors
 * and failures that repeat a sensitive value. The history it was read from keeps the real values.
 */
import { isRecord } from '../common/check';
import {
  redactArguments,
  redactDecisionRecord,
  redactPendingApproval,
  redactResult,
  redactValue,
  scrub,
  sensitiveValues,
  TeamRedaction,
  type ToolSensitivitySpec,
} from '../common/sensitive';
import type { PendingApproval } from '../common/approvals';
import type { ScriptedStep } from '../common/model';
import type { TeamSpec } from '../common/team';
import type { AuditChain, AuditEvent } from './types';

/** Redact `chain` in place (every form of the audit is made from it) and return it. */
export function redactAudit(chain: AuditChain): AuditChain {
  const team = new TeamRedaction(chain.team);
  if (!team.any) return chain;
  // Which tool call each approval is about, so the decisions sent for it are redacted too.
  const approvals = new Map<string, ToolSensitivitySpec | undefined>();
  const values: string[] = [];
  for (const e of chain.events) redactEvent(e, team, approvals, values);
  // Values can surface in texts no field names: an error, a failure, a refused decision's reason.
  const out = (text: string) => scrub(text, values);
  for (const e of chain.events) {
    if (e.kind === 'tool_call' && e.execution?.error) e.execution.error = out(e.execution.error);
    else if (e.kind === 'model_turn' && e.execution.error) e.execution.error = out(e.execution.error);
    else if (e.kind === 'failed' || e.kind === 'workflow_task_failed') e.message = out(e.message);
    else if (e.kind === 'decision_refused') {
      e.reason = out(e.reason);
      if (e.samples) e.samples = e.samples.map((s) => ({ ...s, reason: out(s.reason) }));
    }
  }
  // The request may repeat them too (a customer who typed a card number), and a specialist's task with it.
  for (const e of chain.events) {
    if (e.kind === 'run_started') e.input = { ...e.input, input: out(e.input.input) };
    else if (e.kind === 'delegation') e.task = out(e.task);
  }
  if (chain.input) chain.input = { ...chain.input, input: out(chain.input.input) };
  if (chain.team) chain.team = withScriptsRedacted(chain.team, team);
  if (chain.failure) chain.failure = { ...chain.failure, message: out(chain.failure.message) };
  if (chain.stuck) chain.stuck = { ...chain.stuck, error: out(chain.stuck.error) };
  return chain;
}

function redactEvent(
  e: AuditEvent,
  team: TeamRedaction,
  approvals: Map<string, ToolSensitivitySpec | undefined>,
  values: string[],
): void {
  switch (e.kind) {
    case 'model_turn':
      if (e.toolCalls)
        e.toolCalls = e.toolCalls.map((c) => ({
          ...c,
          arguments: redactArguments(c.arguments, team.of(e.agent, c.name)),
        }));
      return;
    case 'tool_call': {
      const spec = team.of(e.agent, e.tool);
      if (!spec) return;
      const asked = [e.arguments, ...(e.requestedArguments !== undefined ? [e.requestedArguments] : [])];
      values.push(...asked.flatMap((a) => sensitiveValues(a, spec)));
      if (e.result !== undefined) {
        // A result is redacted with the values of both the arguments that ran and those the model wrote.
        e.result = scrub(
          redactResult(e.result, spec, e.arguments, e.ok),
          asked.flatMap((a) => sensitiveValues(a, spec)),
        );
      }
      e.arguments = redactArguments(e.arguments, spec);
      if (e.requestedArguments !== undefined) e.requestedArguments = redactArguments(e.requestedArguments, spec);
      return;
    }
    case 'approval_requested': {
      if (!e.tool) return;
      const spec = team.of(e.from, e.tool.name);
      approvals.set(e.handoffId, spec);
      if (!spec) return;
      values.push(...sensitiveValues(e.tool.arguments, spec));
      const redacted = redactPendingApproval(e as unknown as PendingApproval, spec);
      e.message = redacted.message;
      e.tool = redacted.tool;
      return;
    }
    case 'approval_decided': {
      const spec = approvals.has(e.handoffId) ? approvals.get(e.handoffId) : team.of(undefined, e.tool);
      if (e.editedArguments !== undefined && spec) {
        values.push(...sensitiveValues(e.editedArguments, spec));
        e.editedArguments = redactDecisionRecord(e, spec).editedArguments;
      }
      return;
    }
    case 'update':
    case 'signal': {
      // A decision on a tool call may carry the approver's edited arguments.
      const input = isRecord(e.input)
        ? e.input
        : Array.isArray(e.input) && isRecord(e.input[0])
          ? e.input[0]
          : undefined;
      const spec = typeof input?.handoffId === 'string' ? approvals.get(input.handoffId) : undefined;
      if (!input || !spec?.arguments || !isRecord(input.arguments)) return;
      values.push(...sensitiveValues(JSON.stringify(input.arguments), spec));
      input.arguments = redactValue(input.arguments, spec.arguments);
      return;
    }
    case 'handoff':
      if (e.transfer) e.transfer = { ...e.transfer, messages: team.messages(e.from, e.transfer.messages) };
      return;
    default:
      return;
  }
}

/** The snapshot with the arguments scripted models are to call sensitive tools with redacted (a test or demo script holds them). */
function withScriptsRedacted(spec: TeamSpec, team: TeamRedaction): TeamSpec {
  const step = (agent: string, s: ScriptedStep): ScriptedStep => {
    if (!s.toolCalls) return s;
    return {
      ...s,
      toolCalls: s.toolCalls.map((c) => ({ ...c, arguments: redactSome(c.arguments, team.of(agent, c.name)) })),
    };
  };
  const agents = Object.fromEntries(
    Object.entries(spec.agents).map(([id, agent]) => {
      const model = agent.model;
      if (model.provider !== 'scripted' || !('steps' in model)) return [id, agent];
      return [
        id,
        {
          ...agent,
          model: {
            ...model,
            steps: model.steps.map((s) => step(id, s)),
            rules: model.rules?.map((r) => ({ ...r, reply: step(id, r.reply) })),
          },
        },
      ];
    }),
  );
  return { ...spec, agents };
}

function redactSome(args: Record<string, unknown>, spec: ToolSensitivitySpec | undefined): Record<string, unknown> {
  return spec?.arguments && isRecord(args) ? (redactValue(args, spec.arguments) as Record<string, unknown>) : args;
}
