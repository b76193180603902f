/**
 * Exports as a forger who edited one would hand them over: every digest made again in order, so only
 * the head's signature (which the forger cannot make) and the meaning checks can tell.
 */
import { eventDigest, genesisDigest, recordedValue, type AuditExport } from '../../src/audit/export';
import { canonicalJson, sha256Hex } from '../../src/common/signatures/canonical';

/**
 * `doc` with its events' digests made again after an edit (with `recorded`, the digests of what the
 * events claim history recorded too); its head's signature stays as it was.
 */
export function rechained(doc: AuditExport, options: { recorded?: boolean } = {}): AuditExport {
  let previous = genesisDigest(doc.workflowId);
  const events = doc.events.map((e, seq) => {
    // An edit may leave anything where an event was: a forger chains it as it is.
    if (typeof e !== 'object' || e === null) return e;
    const value =
      e.recorded && options.recorded && typeof e.event === 'object' && e.event !== null
        ? recordedValue(e.event as never)
        : undefined;
    const recorded = value !== undefined ? { ...e.recorded!, digest: sha256Hex(canonicalJson(value)) } : e.recorded;
    previous = eventDigest(previous, { ...e, seq, recorded });
    return { ...e, seq, recorded, digest: previous } as typeof e;
  });
  return { ...doc, events, head: previous };
}
