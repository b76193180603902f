/**
 * What a drain of the approval desk records. What it refused: kept for one record per kind: the first refusal with
 * its fields, how many there were (`count`), and a few more as `samples`. However many decisions,
 * overrides or reports arrive in an activation, refusing them writes O(1) to history; the signals
 * themselves are in history already. And the overrides it applied, as one record.
 *
 * Pure: no Temporal API, no I/O.
 */
import { LIMITS } from '../../src/common/limits';
import type { RunOverrides } from '../../src/common/run';

/** A refusal as the desk records it: its `type` (`decision_refused`, `overrides_refused`, `report_refused`) and its fields. */
export type Refusal = { type: string } & Record<string, unknown>;

interface Kept {
  first: Refusal;
  count: number;
  samples: Record<string, unknown>[];
}

export class RefusalTally {
  private readonly kept = new Map<string, Kept>();

  add(refusal: Refusal): void {
    const kept = this.kept.get(refusal.type);
    if (!kept) {
      this.kept.set(refusal.type, { first: refusal, count: 1, samples: [] });
      return;
    }
    kept.count++;
    // The latest few, beside the first: a flood's end says as much as its start.
    const { type: _type, ...fields } = refusal;
    kept.samples.push(fields);
    if (kept.samples.length > LIMITS.refusalSamples) kept.samples.shift();
  }

  /** One record per kind, in the order the kinds first came: a single refusal as it always was, several with `count` and `samples`. */
  records(): Refusal[] {
    return [...this.kept.values()].map(({ first, count, samples }) =>
      count === 1 ? first : { ...first, count, samples },
    );
  }
}

/** The overrides a drain applied, as one record: each field as the last override that set it left it, and how many there were. */
export function overridesRecord(applied: RunOverrides[]): Record<string, unknown> {
  if (applied.length === 1) return { type: 'overrides_applied', ...applied[0] };
  const options = Object.assign({}, ...applied.map((o) => o.options ?? {})) as Record<string, unknown>;
  const models = Object.assign({}, ...applied.map((o) => o.models ?? {})) as Record<string, unknown>;
  // An operator's signed loosening keeps its own fields (who, signature, what it loosened) on the record.
  const signed = applied.filter((o) => o.operator !== undefined);
  return {
    type: 'overrides_applied',
    ...(Object.keys(options).length > 0 ? { options } : {}),
    ...(Object.keys(models).length > 0 ? { models } : {}),
    count: applied.length,
    ...(signed.length > 0 ? { operators: signed } : {}),
  };
}
