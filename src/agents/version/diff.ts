/**
 * What changed between two versions of a team: agents added or removed, instructions and models
 * changed, tools added, removed, renamed or with changed parameters, the handoff graph and the
 * policies. `baton team diff` prints it; a migration's record names it.
 */
import type { AgentSpec, TeamSpec } from '../../common/team';
import { versionIdOf } from '../../common/version';
import { canonicalJson } from './fingerprint';

/** Kinds of change, in the order a diff lists them. */
export const TEAM_CHANGE_KINDS = [
  'agent_added',
  'agent_removed',
  'instructions_changed',
  'model_changed',
  'description_changed',
  'tool_added',
  'tool_removed',
  'tool_renamed',
  'tool_schema_changed',
  'tool_description_changed',
  'handoffs_changed',
  'policy_changed',
  'team_policy_changed',
] as const;
/** A kind of change between two versions of a team: one of {@link TEAM_CHANGE_KINDS}. */
export type TeamChangeKind = (typeof TEAM_CHANGE_KINDS)[number];

/** One change between two versions. */
export interface TeamDiffEntry {
  kind: TeamChangeKind;
  agent?: string;
  /** The tool (its new name for a rename). */
  tool?: string;
  /** A renamed tool's old name. */
  from?: string;
  /** The policy or field that changed, e.g. `approval`, `toolApprovals`, `approvals`. */
  field?: string;
  /** One line for people. */
  text: string;
}

/** Two versions compared. */
export interface TeamDiff {
  from: string;
  to: string;
  /** Whether the two run chains alike (equal hashes, or equal specs when either has no version). */
  same: boolean;
  changes: TeamDiffEntry[];
}

/** Agent fields that are policies: how the agent is approved, guarded, routed and answered. */
const AGENT_POLICIES = [
  'approval',
  'toolApprovals',
  'toolSensitivity',
  'guardrails',
  'handoffOptions',
  'delegates',
  'delegateOptions',
  'outputSchema',
  'profile',
  'routing',
  'modelActivity',
] as const;

/** The changes from team `a` to team `b`. */
export function diffTeams(a: TeamSpec, b: TeamSpec): TeamDiff {
  const changes: TeamDiffEntry[] = [];
  const ids = [...new Set([...Object.keys(a.agents), ...Object.keys(b.agents)])];
  for (const id of ids) {
    const before = a.agents[id];
    const after = b.agents[id];
    if (!before) changes.push({ kind: 'agent_added', agent: id, text: `agent "${id}" added` });
    else if (!after) changes.push({ kind: 'agent_removed', agent: id, text: `agent "${id}" removed` });
    else changes.push(...agentChanges(before, after));
  }
  if (!same(a.approvals, b.approvals))
    changes.push({
      kind: 'team_policy_changed',
      field: 'approvals',
      text: `team approval rules changed: ${rules(a)} → ${rules(b)}`,
    });
  if (Boolean(a.sharedState) !== Boolean(b.sharedState))
    changes.push({
      kind: 'team_policy_changed',
      field: 'sharedState',
      text: `sharedState ${a.sharedState ? 'on' : 'off'} → ${b.sharedState ? 'on' : 'off'}`,
    });
  changes.sort((x, y) => TEAM_CHANGE_KINDS.indexOf(x.kind) - TEAM_CHANGE_KINDS.indexOf(y.kind));
  const hashes = a.version && b.version ? a.version.hash === b.version.hash : undefined;
  return { from: versionIdOf(a), to: versionIdOf(b), same: hashes ?? changes.length === 0, changes };
}

function agentChanges(a: AgentSpec, b: AgentSpec): TeamDiffEntry[] {
  const id = a.id;
  const out: TeamDiffEntry[] = [];
  if (a.instructions !== b.instructions)
    out.push({
      kind: 'instructions_changed',
      agent: id,
      text: `instructions of "${id}" changed: ${firstDifference(a.instructions, b.instructions)}`,
    });
  if (!same(a.model, b.model))
    out.push({
      kind: 'model_changed',
      agent: id,
      text: `model of "${id}": ${a.model.provider}/${a.model.model} → ${b.model.provider}/${b.model.model}${same({ ...a.model, settings: 0 }, { ...b.model, settings: 0 }) ? ' (settings)' : ''}`,
    });
  if (a.description !== b.description || a.name !== b.name)
    out.push({ kind: 'description_changed', agent: id, text: `name or description of "${id}" changed` });
  out.push(...toolChanges(a, b));
  if (!same([...a.handoffs].sort(), [...b.handoffs].sort()))
    out.push({
      kind: 'handoffs_changed',
      agent: id,
      text: `handoffs of "${id}": ${list(a.handoffs)} → ${list(b.handoffs)}`,
    });
  for (const field of AGENT_POLICIES) {
    if (!same(a[field], b[field]))
      out.push({
        kind: 'policy_changed',
        agent: id,
        field,
        text: `${field} of "${id}" changed${a[field] === undefined ? ' (added)' : b[field] === undefined ? ' (removed)' : ''}`,
      });
  }
  return out;
}

/** Tools added, removed, renamed (same parameters and description under another name) or changed. */
function toolChanges(a: AgentSpec, b: AgentSpec): TeamDiffEntry[] {
  const id = a.id;
  const out: TeamDiffEntry[] = [];
  const before = new Map(a.tools.map((t) => [t.name, t]));
  const after = new Map(b.tools.map((t) => [t.name, t]));
  const removed = a.tools.filter((t) => !after.has(t.name));
  const added = b.tools.filter((t) => !before.has(t.name));
  for (const old of [...removed]) {
    const i = added.findIndex((t) => same(t.parameters, old.parameters));
    if (i < 0) continue;
    const renamed = added.splice(i, 1)[0]!;
    removed.splice(removed.indexOf(old), 1);
    out.push({
      kind: 'tool_renamed',
      agent: id,
      tool: renamed.name,
      from: old.name,
      text: `tool "${old.name}" of "${id}" renamed to "${renamed.name}" (same parameters)`,
    });
  }
  for (const t of added)
    out.push({ kind: 'tool_added', agent: id, tool: t.name, text: `tool "${t.name}" added to "${id}"` });
  for (const t of removed)
    out.push({ kind: 'tool_removed', agent: id, tool: t.name, text: `tool "${t.name}" removed from "${id}"` });
  for (const [name, old] of before) {
    const now = after.get(name);
    if (!now) continue;
    if (!same(old.parameters, now.parameters))
      out.push({
        kind: 'tool_schema_changed',
        agent: id,
        tool: name,
        text: `parameters of tool "${name}" of "${id}" changed: ${schemaChange(old.parameters, now.parameters)}`,
      });
    else if (old.description !== now.description)
      out.push({
        kind: 'tool_description_changed',
        agent: id,
        tool: name,
        text: `description of tool "${name}" of "${id}" changed`,
      });
  }
  return out;
}

/** Properties added, removed and changed between two object schemas, in a few words. */
function schemaChange(a: unknown, b: unknown): string {
  const props = (s: unknown) =>
    ((s as { properties?: Record<string, unknown> })?.properties ?? {}) as Record<string, unknown>;
  const req = (s: unknown) => new Set(((s as { required?: string[] })?.required ?? []) as string[]);
  const [pa, pb, ra, rb] = [props(a), props(b), req(a), req(b)];
  const words: string[] = [];
  for (const k of Object.keys(pb)) if (!(k in pa)) words.push(`+${k}${rb.has(k) ? ' (required)' : ''}`);
  for (const k of Object.keys(pa)) if (!(k in pb)) words.push(`-${k}`);
  for (const k of Object.keys(pa)) if (k in pb && !same(pa[k], pb[k])) words.push(`~${k}`);
  for (const k of Object.keys(pa))
    if (k in pb && ra.has(k) !== rb.has(k)) words.push(`${k} ${rb.has(k) ? 'now required' : 'now optional'}`);
  return words.length > 0 ? words.join(', ') : 'the schema differs';
}

/** Where two texts first differ, quoted briefly. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 20);
  const cut = (s: string) =>
    JSON.stringify(`${from > 0 ? '…' : ''}${s.slice(from, i + 40)}${s.length > i + 40 ? '…' : ''}`);
  return `${cut(a)} → ${cut(b)}`;
}

function same(x: unknown, y: unknown): boolean {
  return canonicalJson(x ?? null) === canonicalJson(y ?? null);
}

function list(ids: readonly string[]): string {
  return ids.length > 0 ? ids.join(', ') : '(none)';
}

function rules(t: TeamSpec): string {
  return t.approvals.length > 0 ? t.approvals.map((r) => `${r.from ?? '*'}→${r.to}`).join(', ') : '(none)';
}

/** A diff as lines for people: a heading, then one line per change. */
export function formatTeamDiff(diff: TeamDiff): string[] {
  if (diff.changes.length === 0)
    return [
      `${diff.from} → ${diff.to}: ${diff.same ? 'no changes' : 'the same agents, tools and policies (the versions differ in what the worker records only)'}`,
    ];
  return [
    `${diff.from} → ${diff.to}: ${diff.changes.length} change(s)`,
    ...diff.changes.map((c) => `  ${c.kind.padEnd(24)} ${c.text}`),
  ];
}
