import path from 'node:path';
import type { BatonHooks } from '../agents/hooks';
import { Team } from '../agents/team';
import { UsageError } from './args';

/** A team module: exports `team` (or a default export) and optionally `hooks`. */
export interface TeamModule {
  team: Team;
  hooks?: BatonHooks;
}

/** Load a team module given on the command line (TypeScript or JavaScript). */
export function loadTeamModule(specifier: string | undefined): TeamModule {
  if (!specifier) throw new UsageError('--team <module> is required: a file that exports `team = new Team([...])`');
  const file = path.resolve(specifier);
  let mod: Record<string, unknown>;
  try {
    mod = require(file) as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`cannot load team module ${file}: ${(err as Error).message}`);
  }
  const team = mod.team ?? mod.default;
  if (!(team instanceof Team)) {
    throw new UsageError(`${file} must export \`team\` (or a default export) created with new Team([...])`);
  }
  return { team, hooks: mod.hooks as BatonHooks | undefined };
}
