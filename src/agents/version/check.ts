/**
 * The worker's side of a team need: what of a step's needs this worker's team lacks, in words.
 */
import { agentOfPart, describePart, TeamPart, type TeamNeed, type TeamVersion } from '../../common/version';

/** What the worker running a step has. */
export interface WorkerTeam {
  version: TeamVersion;
  /** The model providers it has, by name. */
  providers: readonly string[];
}

/** What `need` asks for that `worker` does not have; empty when the worker can run the step. */
export function missingFor(need: TeamNeed | undefined, worker: WorkerTeam): string[] {
  if (!need) return [];
  const missing: string[] = [];
  if (need.hash !== undefined && need.hash !== worker.version.hash)
    missing.push(`team ${need.version} as a whole (a specialist runs on the team of the chain that delegated to it)`);
  if (need.provider !== undefined && !worker.providers.includes(need.provider))
    missing.push(`model provider "${need.provider}"`);
  const lackingAgents = new Set<string>();
  for (const [key, fingerprint] of Object.entries(need.parts ?? {})) {
    const agent = agentOfPart(key);
    const has = worker.version.parts[key];
    if (!(TeamPart.answer(agent) in worker.version.parts)) {
      if (!lackingAgents.has(agent)) missing.push(`agent "${agent}"`);
      lackingAgents.add(agent);
    } else if (has === undefined) missing.push(describePart(key));
    else if (fingerprint !== '' && has !== fingerprint)
      missing.push(`${describePart(key)} as team ${need.version} has it (this worker's differs)`);
  }
  return missing;
}
