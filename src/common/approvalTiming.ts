/**
 * The timing of an approval policy — its SLA (`dueIn`), reminders (`remindEvery`) and escalation
 * steps — as data: the types, their checks (each problem names the field and what is valid), and
 * how the levels that may set them combine (docs/approvals.md, "Policies").
 *
 * Workflow-safe: no I/O.
 */
import { durationMs, isRecord, names, shown, type Check } from './check';

/** What an escalation step's final decision is. */
export const EscalationDecision = {
  APPROVE: 'approve',
  REJECT: 'reject',
  FAIL: 'fail',
} as const;
export type EscalationDecision = (typeof EscalationDecision)[keyof typeof EscalationDecision];

/**
 * One step of an escalation, taken `after` this long since the approval was asked for (workflow
 * time, carried across continue-as-new): exactly one of `reassign` (the approvers become these),
 * `notify` (these people are told; the approvers stay) or `decide` (the policy decides; the last step).
 */
export interface EscalationStep {
  /** Since the approval was asked for, e.g. `"2 hours"`. */
  after: string | number;
  /** The approvers (people or groups, as decisions name them) who may decide from this step on. */
  reassign?: string[];
  /** Who is told the approval is still waiting. */
  notify?: string[];
  /** What the policy decides when nobody did: `approve`, `reject` or `fail` the run. */
  decide?: EscalationDecision;
}

/** The timing fields a policy, a team's `approvalPolicy` and a run's `approvalPolicy` may set. */
export interface ApprovalTiming {
  /** The SLA: the approval is due this long after it was asked for; past it, it is overdue (recorded once). */
  dueIn?: string | number;
  /** Remind the approvers this often while the approval waits. */
  remindEvery?: string | number;
  /** Steps taken when nobody decides, in order of `after`. */
  escalation?: EscalationStep[];
}

/** The shortest reminder interval: reminders more often than this are noise, and history. */
export const MIN_REMIND_MS = 60_000;
/** The most escalation steps a policy may have. */
export const MAX_ESCALATION_STEPS = 20;

const TIMING_KEYS = ['dueIn', 'remindEvery', 'escalation'] as const;
const STEP_ACTIONS = ['reassign', 'notify', 'decide'] as const;

/** Problems with one escalation step at `key`. */
function stepProblems(v: unknown, key: string): string[] {
  if (!isRecord(v)) return [`"${key}" must be an object {after, reassign | notify | decide}, got ${shown(v)}`];
  const problems: string[] = [];
  const extra = Object.keys(v).filter((k) => k !== 'after' && !(STEP_ACTIONS as readonly string[]).includes(k));
  if (extra.length > 0)
    problems.push(
      `"${key}" has unknown field(s) ${extra.map((k) => JSON.stringify(k)).join(', ')} (valid: after, reassign, notify, decide)`,
    );
  if (v.after === undefined)
    problems.push(`"${key}.after" is missing: say how long after the request the step is taken, such as "2 hours"`);
  else if (durationMs(v.after) === undefined || durationMs(v.after)! < 1000)
    problems.push(
      `"${key}.after" must be a duration from 1 second up to a year, such as "2 hours", got ${shown(v.after)}`,
    );
  const actions = STEP_ACTIONS.filter((a) => v[a] !== undefined);
  if (actions.length !== 1)
    problems.push(
      `"${key}" must have exactly one of reassign, notify, decide, got ${actions.length === 0 ? 'none' : actions.join(' and ')}`,
    );
  for (const list of ['reassign', 'notify'] as const) {
    if (v[list] === undefined) continue;
    problems.push(...names(v[list], `${key}.${list}`));
    if (Array.isArray(v[list]) && v[list].length === 0)
      problems.push(
        `"${key}.${list}" is empty: name who ${list === 'reassign' ? 'may decide from this step on' : 'is told'}`,
      );
  }
  if (v.decide !== undefined && !Object.values(EscalationDecision).includes(v.decide as EscalationDecision))
    problems.push(`"${key}.decide" must be one of approve, reject, fail, got ${shown(v.decide)}`);
  return problems;
}

/** Problems with the timing fields of `v` (a policy, or a team's or run's `approvalPolicy`) at `key`. */
export function timingProblems(v: Record<string, unknown>, key: string): string[] {
  const problems: string[] = [];
  if (v.dueIn !== undefined && (durationMs(v.dueIn) ?? 0) < 1000)
    problems.push(
      `"${key}.dueIn" must be a duration from 1 second up to a year, such as "4 hours", got ${shown(v.dueIn)}`,
    );
  if (v.remindEvery !== undefined && (durationMs(v.remindEvery) ?? 0) < MIN_REMIND_MS)
    problems.push(
      `"${key}.remindEvery" must be a duration from 1 minute up to a year, such as "30 minutes", got ${shown(v.remindEvery)}`,
    );
  if (v.escalation === undefined) return problems;
  if (!Array.isArray(v.escalation))
    return [
      ...problems,
      `"${key}.escalation" must be a list of steps [{after, reassign | notify | decide}], got ${shown(v.escalation)}`,
    ];
  const steps = v.escalation as unknown[];
  if (steps.length > MAX_ESCALATION_STEPS)
    problems.push(`"${key}.escalation" has ${steps.length} steps; at most ${MAX_ESCALATION_STEPS}`);
  steps.forEach((s, i) => problems.push(...stepProblems(s, `${key}.escalation[${i}]`)));
  if (problems.length > 0) return problems;
  const typed = steps as EscalationStep[];
  for (let i = 1; i < typed.length; i++) {
    if (durationMs(typed[i]!.after)! <= durationMs(typed[i - 1]!.after)!)
      problems.push(
        `"${key}.escalation[${i}].after" (${shown(typed[i]!.after)}) must come later than the step before it (${shown(typed[i - 1]!.after)}): steps are taken in order`,
      );
  }
  const decides = typed.findIndex((s) => s.decide !== undefined);
  if (decides >= 0 && decides < typed.length - 1)
    problems.push(
      `"${key}.escalation[${decides}]" decides, so it must be the last step: the steps after it would never be taken`,
    );
  if (decides >= 0 && v.timeout !== undefined)
    problems.push(
      `"${key}" has both "timeout" and an escalation step that decides; keep one (the step's "after" is the timeout)`,
    );
  const timeoutMs = durationMs(v.timeout);
  const late = timeoutMs === undefined ? -1 : typed.findIndex((s) => durationMs(s.after)! >= timeoutMs);
  if (late >= 0)
    problems.push(
      `"${key}.escalation[${late}].after" (${shown(typed[late]!.after)}) is not before the "timeout" (${shown(v.timeout)}): the step would never be taken`,
    );
  return problems;
}

/** A check of a team's or a run's `approvalPolicy`: timing fields only. */
export const approvalTimingCheck: Check<ApprovalTiming> = (v, key) => {
  if (!isRecord(v)) return [`"${key}" must be an object {dueIn?, remindEvery?, escalation?}, got ${shown(v)}`];
  const extra = Object.keys(v).filter((k) => !(TIMING_KEYS as readonly string[]).includes(k));
  const unknown =
    extra.length > 0
      ? [
          `"${key}" has unknown field(s) ${extra.map((k) => JSON.stringify(k)).join(', ')} (valid: ${TIMING_KEYS.join(', ')})`,
        ]
      : [];
  return [...unknown, ...timingProblems(v, key)];
};

/**
 * The timing an approval runs on: each field from the most specific level that sets it — the
 * policy that asks for the approval (a run rule, a team edge rule, a team target rule, the agent's
 * own `approval`, or the tool's `needsApproval`), then the run's `approvalPolicy`, then the team's.
 * `undefined` when no level sets any.
 */
export function effectiveTiming(
  policy: ApprovalTiming,
  run?: ApprovalTiming,
  team?: ApprovalTiming,
): ApprovalTiming | undefined {
  const levels = [policy, run ?? {}, team ?? {}];
  const pick = <K extends keyof ApprovalTiming>(k: K) => levels.find((l) => l[k] !== undefined)?.[k];
  const dueIn = pick('dueIn');
  const remindEvery = pick('remindEvery');
  const escalation = pick('escalation');
  if (dueIn === undefined && remindEvery === undefined && escalation === undefined) return undefined;
  return {
    ...(dueIn !== undefined ? { dueIn } : {}),
    ...(remindEvery !== undefined ? { remindEvery } : {}),
    ...(escalation ? { escalation: escalation.map((s) => ({ ...s })) } : {}),
  };
}

/** How soon (ms after the request) `timing` has the policy approve with nobody deciding, if it ever does. */
export function autoApprovalMs(timing: ApprovalTiming | undefined): number | undefined {
  const step = timing?.escalation?.find((s) => s.decide === 'approve');
  return step ? durationMs(step.after) : undefined;
}

/** Everyone an escalation of `timing` may hand the decision to. */
export function reassignedTo(timing: ApprovalTiming | undefined): string[] {
  return (timing?.escalation ?? []).flatMap((s) => s.reassign ?? []);
}
