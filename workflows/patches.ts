/**
 * baton's `patched()` checks, through a baseline: a run started on this code records one marker
 * ({@link Patches.BASELINE_2026_11}) for every patch the baseline covers, instead of a marker and a
 * search-attribute upsert per patch, so a chain's first workflow task writes a dozen fewer events.
 * A run recorded before the baseline has no such marker and answers each patch by its own.
 */
import { patched } from '@temporalio/workflow';
import { BASELINE_2026_11_COVERS, Patches } from '../src/common/patches';

const covered = new Set(BASELINE_2026_11_COVERS);

/**
 * Where a run keeps its baseline decision: a global of its own. baton's modules are shared by every
 * workflow in a worker (they are preloaded), so module state would be every run's; the SDK gives
 * each workflow its own globals.
 */
const BASELINE = '__batonPatchBaseline';

/** Whether this run takes the path the patch `id` guards (one of `Patches`). */
export function hasPatch(id: string): boolean {
  const run = globalThis as { [BASELINE]?: boolean };
  // Decided at the run's first check, which every run makes when it starts.
  run[BASELINE] ??= patched(Patches.BASELINE_2026_11);
  return (run[BASELINE] && covered.has(id)) || patched(id);
}
