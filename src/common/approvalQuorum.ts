/**
 * Quorum and stages of an approval policy, as data: their checks (each problem names the field and
 * what is valid) and the stages an approval is decided in, chosen from the call's arguments when it
 * is asked for (docs/approvals.md, "Quorum and stages").
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalPolicy, ApprovalStage, StageState } from './approvals';
import { isRecord, names, shown } from './check';
import { argConditionProblems, type ArgCondition, conditionHolds } from './argConditions';

/** The most slots a quorum or a stage may name. */
export const MAX_SLOTS = 20;
/** The most stages a policy may have. */
export const MAX_STAGES = 10;

const STAGE_KEYS = ['approvers', 'needed', 'when'];

/** Problems with `needed` of `slots` at `key`. */
function neededProblems(needed: unknown, slots: unknown, key: string): string[] {
  const n = Array.isArray(slots) ? slots.length : MAX_SLOTS;
  return Number.isInteger(needed) && (needed as number) >= 1 && (needed as number) <= n
    ? []
    : [`"${key}" must be a whole number from 1 to ${n} (how many of the approvers must approve), got ${shown(needed)}`];
}

/** Problems with a list of slots at `key`: names, not empty, at most {@link MAX_SLOTS}, each once. */
function slotProblems(v: unknown, key: string): string[] {
  const problems = names(v, key);
  if (!Array.isArray(v)) return problems;
  if (v.length === 0) problems.push(`"${key}" is empty: name who decides`);
  if (v.length > MAX_SLOTS) problems.push(`"${key}" names ${v.length} approvers; at most ${MAX_SLOTS}`);
  const twice = v.filter((x, i) => v.indexOf(x) !== i);
  if (twice.length > 0)
    problems.push(`"${key}" names ${twice.map((x) => shown(x)).join(', ')} more than once: each approver is one slot`);
  return problems;
}

function stageProblems(v: unknown, key: string): string[] {
  if (!isRecord(v)) return [`"${key}" must be a stage {approvers, needed?, when?}, got ${shown(v)}`];
  const extra = Object.keys(v).filter((k) => !STAGE_KEYS.includes(k));
  const problems =
    extra.length > 0
      ? [
          `"${key}" has unknown field(s) ${extra.map((k) => JSON.stringify(k)).join(', ')} (valid: ${STAGE_KEYS.join(', ')})`,
        ]
      : [];
  problems.push(...slotProblems(v.approvers, `${key}.approvers`));
  if (v.needed !== undefined) problems.push(...neededProblems(v.needed, v.approvers, `${key}.needed`));
  if (v.when !== undefined)
    problems.push(...argConditionProblems(Array.isArray(v.when) ? v.when : [v.when], `${key}.when`));
  return problems;
}

/** Problems with the `quorum` and `stages` of `v` (a policy or rule) at `key`, and with how they sit beside its other fields. */
export function slotPolicyProblems(v: Record<string, unknown>, key: string): string[] {
  const problems: string[] = [];
  const { quorum, stages } = v;
  if (quorum !== undefined) {
    if (!isRecord(quorum))
      problems.push(`"${key}.quorum" must be {of: [approvers], needed: number}, got ${shown(quorum)}`);
    else {
      const extra = Object.keys(quorum).filter((k) => k !== 'of' && k !== 'needed');
      if (extra.length > 0)
        problems.push(
          `"${key}.quorum" has unknown field(s) ${extra.map((k) => JSON.stringify(k)).join(', ')} (valid: of, needed)`,
        );
      problems.push(
        ...slotProblems(quorum.of, `${key}.quorum.of`),
        ...neededProblems(quorum.needed, quorum.of, `${key}.quorum.needed`),
      );
    }
  }
  if (stages !== undefined) {
    if (!Array.isArray(stages) || stages.length === 0)
      problems.push(
        `"${key}.stages" must be a non-empty list of stages [{approvers, needed?, when?}], got ${shown(stages)}`,
      );
    else {
      if (stages.length > MAX_STAGES)
        problems.push(`"${key}.stages" has ${stages.length} stages; at most ${MAX_STAGES}`);
      stages.forEach((s, i) => problems.push(...stageProblems(s, `${key}.stages[${i}]`)));
      // Conditions only ever drop stages: one that always applies means every call has someone to decide it.
      if (stages.every((s) => isRecord(s) && s.when !== undefined))
        problems.push(
          `"${key}.stages": every stage has "when", so a call meeting none would have nobody to decide it; leave "when" out of at least one stage`,
        );
    }
  }
  if (quorum !== undefined && stages !== undefined)
    problems.push(`"${key}" has both "quorum" and "stages"; keep one (a stage {approvers, needed} is a quorum)`);
  if ((quorum !== undefined || stages !== undefined) && v.approvers !== undefined)
    problems.push(
      `"${key}" has "approvers" beside "${quorum !== undefined ? 'quorum' : 'stages'}", which names who decides; keep one`,
    );
  const reassigns = Array.isArray(v.escalation) && v.escalation.some((s) => isRecord(s) && s.reassign !== undefined);
  if ((quorum !== undefined || stages !== undefined) && reassigns)
    problems.push(
      `"${key}.escalation" reassigns, which a policy with "${quorum !== undefined ? 'quorum' : 'stages'}" cannot: its slots are fixed; use notify or decide steps`,
    );
  return problems;
}

/** The policy decides by slots: it has a `quorum` or `stages`. */
export function hasSlots(policy: ApprovalPolicy): boolean {
  return policy.quorum !== undefined || policy.stages !== undefined;
}

/**
 * The stages an approval under `policy` is decided in, for a call with `args` (a tool call's
 * arguments; a handoff's `{from, to, message}`): each stage whose conditions all hold, in order.
 * Arguments that cannot be read (not a JSON object) take every stage: more people, never fewer.
 */
export function stagesFor(policy: ApprovalPolicy, args: Record<string, unknown> | undefined): StageState[] {
  if (policy.quorum) return [{ approvers: [...policy.quorum.of], needed: policy.quorum.needed }];
  const all = policy.stages ?? [];
  const chosen = all.filter((s) => args === undefined || applies(s, args));
  return (chosen.length > 0 ? chosen : all).map((s) => ({ approvers: [...s.approvers], needed: s.needed ?? 1 }));
}

function applies(stage: ApprovalStage, args: Record<string, unknown>): boolean {
  const when: ArgCondition[] = stage.when === undefined ? [] : Array.isArray(stage.when) ? stage.when : [stage.when];
  return when.every((c) => conditionHolds(c, args));
}

/** A tool call's arguments as conditions read them; `undefined` when they are not a JSON object. */
export function argumentsOf(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text || '{}');
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
