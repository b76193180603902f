import path from 'node:path';
import type { BatonHooks } from '../agents/hooks';
import { Team } from '../agents/team';
import { UsageError } from './args';

/** A team module: exports `team` (or a default export) and optionally `hooks`. */
export interface TeamModule {
  team: Team;
  hooks?: BatonHooks;
}

/** A team module that threw while loading: a defect in that module, reported with its stack (exit code 1). */
export class TeamModuleError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(`the team module ${file} threw while loading`, { cause });
    this.name = new.target.name;
  }
}

/** Load a team module given on the command line (TypeScript or JavaScript). */
export function loadTeamModule(specifier: string | undefined): TeamModule {
  if (!specifier) throw new UsageError('--team <module> is required: a file that exports `team = new Team([...])`');
  const file = resolveModule(path.resolve(specifier));
  if (/\.[mc]?ts$/.test(file) && !require.extensions['.ts']) {
    throw new UsageError(
      `${file} is TypeScript: install tsx beside baton (npm install --save-dev tsx) to load it, or give the compiled JavaScript`,
    );
  }
  let mod: Record<string, unknown>;
  try {
    mod = require(file) as Record<string, unknown>;
  } catch (err) {
    throw new TeamModuleError(file, err);
  }
  const team = mod.team ?? mod.default;
  if (!(team instanceof Team)) {
    throw new UsageError(`${file} must export \`team\` (or a default export) created with new Team([...])`);
  }
  return { team, hooks: mod.hooks as BatonHooks | undefined };
}

function resolveModule(file: string): string {
  try {
    return require.resolve(file);
  } catch {
    throw new UsageError(`no team module at ${file}`);
  }
}
