/**
 * Judging an override against what protects the chain: an override that only tightens applies; one
 * that loosens applies only with an operator's valid signature (`operator`, `signature`), and is
 * otherwise refused on the record with the reason naming each option and what is allowed.
 *
 * Workflow-safe: no I/O.
 */
import { resolveRunOptions } from '../options';
import type { RunOverrides } from '../run';
import { type OperatorIdentity, verifyOperatorSignature } from '../signatures/operator';
import type { ChainState } from '../state';
import { looseningProblems } from './protective';

/** An override that applies (with the operator who signed it and what it loosened), or why it is refused. */
export type OverrideVerdict =
  { ok: true; operator?: OperatorIdentity; loosened?: string[] } | { ok: false; problems: string[] };

/** Where and when an override is judged: the chain's workflow id and its arrival (ms, workflow time). */
export interface OverrideBench {
  workflowId: string;
  at: number;
  /** Each operator signature is taken once (runs with the `baton-operator-passkeys` patch). */
  once?: boolean;
}

/** Judge valid overrides `o` for the chain `s`. */
export function judgeOverrides(
  s: Pick<ChainState, 'options' | 'team' | 'controls' | 'operatorSignCounts' | 'operatorSignedAt'>,
  o: RunOverrides,
  bench: OverrideBench,
): OverrideVerdict {
  const after = o.options ? resolveRunOptions({ ...s.options, ...o.options }) : s.options;
  const loosened = looseningProblems(s.options, after, { team: s.team, startedAt: s.controls?.startedAt ?? bench.at });
  if (o.operator === undefined || o.signature === undefined) {
    if (loosened.length === 0) return { ok: true };
    return {
      ok: false,
      problems: [
        ...loosened,
        "an override may only tighten these; a loosening needs an operator's signed override (operator, signature: docs/authority.md)",
      ],
    };
  }
  const trust = {
    requirePasskey: s.team.requireOperatorPasskey === true,
    lastSignCount: (kid: string) => s.operatorSignCounts?.[kid],
    ...(bench.once ? { lastSignedAt: (kid: string) => s.operatorSignedAt?.[kid] } : {}),
  };
  const verdict = verifyOperatorSignature(
    { workflowId: bench.workflowId, overrides: o, operator: o.operator, signature: o.signature, arrivedAt: bench.at },
    s.team.operatorKeys ?? [],
    trust,
  );
  if (!verdict.ok) return { ok: false, problems: [`the operator's signature is refused: ${verdict.reason}`] };
  return { ok: true, operator: verdict.identity, ...(loosened.length > 0 ? { loosened } : {}) };
}
