/**
 * Team versions: the fingerprint of what a run depends on, the parts a worker must have to run a
 * step, and what changed between two versions.
 */
export {
  canonicalJson,
  DEFAULT_TEAM_NAME,
  namingProblems,
  teamParts,
  teamVersion,
  type VersionNaming,
} from './fingerprint';
export { missingFor, type WorkerTeam } from './check';
export {
  diffTeams,
  formatTeamDiff,
  TEAM_CHANGE_KINDS,
  type TeamChangeKind,
  type TeamDiff,
  type TeamDiffEntry,
} from './diff';
