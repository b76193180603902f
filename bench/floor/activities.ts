/** The floor's activity: does nothing, or waits like a model would. */
export async function noop(latencyMs: number): Promise<void> {
  if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
}
