/**
 * `needsApproval` of a tool (a local one or an MCP server's): when its calls wait for a person,
 * checked once where it is declared, and recorded in the team snapshot as a `ToolApprovalSpec`.
 * Workflow-safe: no I/O.
 */
import type { ApprovalPolicy } from './approvals';
import { shape } from './check';
import { argConditionProblems, type ArgCondition } from './argConditions';
import type { ToolApprovalSpec } from './controls';
import type { JsonSchema } from './model';
import { APPROVAL_POLICY_FIELDS, withTiming } from './approvalPolicy';
import { listOnSchemaPath, schemaPathProblem } from './schemaPaths';

/** When a tool's calls need approval, and under which policy. */
export interface ToolApprovalOptions extends ApprovalPolicy {
  /**
   * Conditions on the call's arguments, all of which must hold for the call to need approval; every
   * call when absent. Each `arg` must name an argument of the tool's parameters, not one inside a
   * list (checked: a condition that could never hold would let every call through).
   */
  when?: ArgCondition | ArgCondition[];
}

const toolApprovalCheck = withTiming(
  shape({ ...APPROVAL_POLICY_FIELDS, when: () => [] }, [...Object.keys(APPROVAL_POLICY_FIELDS), 'when']),
);

/**
 * `needsApproval` as the team snapshot records it (undefined: calls run without approval); its
 * problems, named under `field`, go to `problems`.
 */
export function toolApprovalSpec(
  needsApproval: unknown,
  problems: string[],
  field = 'needsApproval',
): ToolApprovalSpec | undefined {
  if (needsApproval === undefined || needsApproval === false) return undefined;
  if (needsApproval === true) return {};
  if (typeof needsApproval !== 'object' || needsApproval === null || Array.isArray(needsApproval)) {
    const hint = Array.isArray(needsApproval) ? ' (conditions go in when: { when: [{ arg, op, value }] })' : '';
    problems.push(
      `${field} must be true or {when?, approvers?, timeout?, onTimeout?, dueIn?, remindEvery?, escalation?}, got ${JSON.stringify(needsApproval)}${hint}`,
    );
    return undefined;
  }
  const { when, ...policy } = needsApproval as ToolApprovalOptions;
  const conditions = when === undefined ? undefined : Array.isArray(when) ? when : [when];
  problems.push(...toolApprovalCheck(needsApproval, field));
  // Approvers who are nobody: every call would wait for its timeout.
  if (Array.isArray(policy.approvers) && policy.approvers.length === 0)
    problems.push(
      `"${field}.approvers" is empty, so nobody could approve a call; name who may, or leave it out to let anyone`,
    );
  if (conditions) problems.push(...argConditionProblems(conditions, `${field}.when`));
  return { ...policy, ...(conditions ? { when: conditions.map((c) => ({ ...c })) } : {}) };
}

/**
 * Problems with the arguments conditions name, against the tool's parameters. A condition on an
 * argument the tool does not have, or inside a list, never holds: its calls would never wait.
 */
export function conditionArgProblems(
  conditions: ArgCondition[],
  of: { parameters: JsonSchema; tool: string },
  field = 'needsApproval',
): string[] {
  return conditions.flatMap((c, i) => {
    if (typeof c.arg !== 'string' || c.arg === '') return [];
    const at = `"${field}.when[${i}].arg" ${JSON.stringify(c.arg)}`;
    const missing = schemaPathProblem(of.parameters, c.arg, of.tool);
    if (missing) return [`${at}: ${missing}`];
    const list = listOnSchemaPath(of.parameters, c.arg);
    return list
      ? [
          `${at}: ${list} is a list, and a condition weighs one value; put the condition on the list itself (e.g. exists)`,
        ]
      : [];
  });
}
