/**
 * What becomes of overrides that arrived: refused on the record (too large, not readable, bad
 * options, or loosening what protects the chain without an operator's signature), or applied as
 * recorded (with the operator who signed a loosening, and what it loosened).
 *
 * Pure: no Temporal API, no I/O.
 */
import { isUnreadable } from '../../src/common/arrival';
import { judgeOverrides } from '../../src/common/authority/overrides';
import { isRecord } from '../../src/common/check';
import { overrideProblems } from '../../src/common/input';
import { boundedProblems, clipText, LIMITS, sizeMessage } from '../../src/common/limits';
import { Patches } from '../../src/common/patches';
import type { RunOverrides } from '../../src/common/run';
import { overrideSizes } from '../../src/common/sizes';
import type { ChainState } from '../../src/common/state';
import type { Refusal } from './refusals';

/** How the desk weighs overrides: its bounds, and whether the run checks authority. */
export interface OverrideRules {
  bounded: boolean;
  authority: boolean;
  workflowId: string;
  /** Workflow time (ms) the overrides arrived at. */
  at: number;
  /** Temporal's `patched(id)`, asked only when an operator's signature arrives. */
  patched: (id: string) => boolean;
}

/** What a run from before operator passkeys answered a passkey's five-part signature with (the problem as its code wrote it). */
const BEFORE_OPERATOR_PASSKEYS = `the operator's signature is refused: the operator's signature must be a JWS compact serialization (header.payload.signature, at most ${LIMITS.signatureChars} characters)`;

export type OverrideVerdict = { kind: 'refused'; refusal: Refusal } | { kind: 'applied'; applied: RunOverrides };

/** Refused or applied: the overrides `raw`, as `rules` weigh them against the chain `state`. */
export function overrideVerdict(raw: unknown, state: ChainState, rules: OverrideRules): OverrideVerdict {
  const sizes = isUnreadable(raw)
    ? [raw.problem('the overrides')]
    : rules.bounded
      ? overrideSizes(raw).map(sizeMessage)
      : [];
  const problems = sizes.length > 0 ? sizes : overrideProblems(raw, Object.keys(state.team.agents), rules.authority);
  // Authority: what protects the chain is only tightened, unless an operator of the team signed the loosening.
  const judged =
    problems.length > 0 || !rules.authority
      ? { ok: true as const }
      : passkeySigned(raw) && !rules.patched(Patches.OPERATOR_PASSKEYS)
        ? { ok: false as const, problems: [BEFORE_OPERATOR_PASSKEYS] }
        : // Runs with the patch take each operator signature once; runs from before took one again within its age.
          judgeOverrides(state, raw as RunOverrides, {
            workflowId: rules.workflowId,
            at: rules.at,
            once: signed(raw) && rules.patched(Patches.OPERATOR_PASSKEYS),
          });
  if (problems.length > 0 || !judged.ok) {
    const by = isRecord(raw) && typeof raw.operator === 'string' ? { operator: clipText(raw.operator, 200) } : {};
    return {
      kind: 'refused',
      refusal: {
        type: 'overrides_refused',
        ...by,
        problems: boundedProblems(judged.ok ? problems : judged.problems),
      } as Refusal,
    };
  }
  const applied = judged.operator
    ? {
        ...(raw as RunOverrides),
        identity: judged.operator,
        ...(judged.loosened ? { loosened: boundedProblems(judged.loosened) } : {}),
      }
    : (raw as RunOverrides);
  return { kind: 'applied', applied };
}

/** Whether overrides carry an operator's signature. */
function signed(raw: unknown): boolean {
  return isRecord(raw) && typeof raw.signature === 'string';
}

/** Whether overrides carry an operator's signature in a passkey's five parts. */
function passkeySigned(raw: unknown): boolean {
  return (
    isRecord(raw) &&
    typeof raw.signature === 'string' &&
    raw.signature.length <= LIMITS.signatureChars &&
    raw.signature.split('.').length === 5
  );
}
