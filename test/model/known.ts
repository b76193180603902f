/**
 * Defects the harness found that are still open, each with what its violations say. While one is
 * listed, a violation that matches it is counted as known (printed, not failing `npm test`) and
 * the sequence goes on; its regression case under regressions/ is skipped naming it. When the fix
 * lands, delete its entry and the `skip` of its regression cases: from then on it fails again.
 * `npm run drill -- model --strict` counts known violations as broken.
 */

/** An open defect and the violations it causes. */
export interface KnownDefect {
  /** The defect as the project tracks it. */
  name: string;
  /** Matches the text of a violation it causes. */
  matches: RegExp;
}

export const KNOWN_OPEN: KnownDefect[] = [];

/** The open defect a violation shows, if any. */
export function knownDefect(violation: string): KnownDefect | undefined {
  return KNOWN_OPEN.find((d) => d.matches.test(violation));
}
