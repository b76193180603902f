/**
 * What operations remember about the chains of one system (by root id), forgotten when the
 * harness creates the next: files that share a process share these modules, and with the same
 * `BATON_MODEL_SEED` their sequences name their roots alike.
 */

const kept = new Set<{ clear(): void }>();

/** `memory`, cleared whenever a new system is created ({@link forgetSystems}). */
export function perSystem<T extends { clear(): void }>(memory: T): T {
  kept.add(memory);
  return memory;
}

/** Forget what every operation remembered of the systems before. */
export function forgetSystems(): void {
  for (const memory of kept) memory.clear();
}
