import fs from 'node:fs';
import { isGrpcServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { diffTeams, formatTeamDiff } from '../agents/version';
import { teamSnapshot } from '../client/sensitive';
import type { TeamSpec } from '../common/team';
import { parse, UsageError } from './args';
import { connect, temporalAddress } from './connect';
import type { Command } from './context';
import { loadTeamModule } from './team';
import { applyPolicyCommand, runningDiff } from './teamPolicy';

/** `baton team <module>` and `baton team diff <a> <b>`: a team's version, and what changed between two. */
export const teamCommand: Command = {
  synopsis:
    'baton team <module> [--json]\nbaton team diff <a> <b> [--json]\nbaton team diff --running <module> [--task-queue <q>] [--json]\nbaton team apply-policy <module> --by <name> [--reason <text>] [--task-queue <q>] [--json]',
  summary: "a team module's version; what changed between two versions of a team",
  help: `baton team <module>        the team's version id (name@label, or name@<hash> without a label), its
                           hash, and each agent's model, tools, handoffs and delegation targets
                           (capability routing adds "by capability" and the agents with a profile)
baton team diff <a> <b>    what changed from <a> to <b>: agents added or removed, instructions and
                           models changed, tools added, removed, renamed or with changed parameters,
                           handoffs and policies. Each of <a> and <b> is a team module, a JSON
                           snapshot (baton team <module> --json), or a workflow id: the team that
                           chain runs on, read from its history.
baton team diff --running <module>
                           the chains and conversations running on the task queue (--task-queue, default
                           baton) under a looser approval policy than the team's, and what each lacks
baton team apply-policy <module> --by <name>
                           apply the team's approval policies (handoffs, tool calls, signatures) to every
                           running chain and conversation on the queue under a looser one (the
                           tightenPolicy update, recorded with --by and --reason); each chain refuses
                           what would loosen it. Exit 1 when any refused or could not be reached.
  --json                   print JSON

A worker refuses a chain's steps that need what its team lacks (TeamMismatchError); compare the
chain's team with yours: baton team diff <workflowId> ./team.ts. A team with MCP servers: the tools
its servers list join the version when a worker connects, so here the version leaves them out.`,
  async run(argv, { out }) {
    const { values, positionals } = parse(argv, {
      json: { type: 'boolean', default: false },
      running: { type: 'boolean', default: false },
      'task-queue': { type: 'string' },
      by: { type: 'string' },
      reason: { type: 'string' },
    });
    if (positionals[0] === 'apply-policy') {
      if (positionals.length !== 2) throw new UsageError('baton team apply-policy takes exactly <module>');
      return applyPolicyCommand(
        positionals[1]!,
        { by: values.by, reason: values.reason, taskQueue: values['task-queue'], json: values.json },
        out,
      );
    }
    if (positionals[0] === 'diff' && values.running) {
      if (positionals.length !== 2) throw new UsageError('baton team diff --running takes exactly <module>');
      return runningDiff(positionals[1]!, values['task-queue'], values.json, out);
    }
    if (positionals[0] === 'diff') {
      if (positionals.length !== 3) throw new UsageError('baton team diff takes exactly <a> and <b>');
      const [a, b] = await Promise.all([teamOf(positionals[1]!), teamOf(positionals[2]!)]);
      const diff = diffTeams(a, b);
      if (values.json) out(JSON.stringify(diff, null, 2));
      else for (const line of formatTeamDiff(diff)) out(line);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError('expected <module> (or diff <a> <b>)');
    const spec = loadTeamModule(positionals[0]).team.spec();
    if (values.json) out(JSON.stringify(spec, null, 2));
    else for (const line of describe(spec)) out(line);
    return 0;
  },
};

/** A team's version and agents, for people. */
function describe(spec: TeamSpec): string[] {
  const v = spec.version!;
  return [
    `${v.id}`,
    `  hash ${v.hash}${v.label ? ` (label ${v.label})` : ''}`,
    ...Object.values(spec.agents).map((a) => {
      // Capability routing reaches every other agent with a profile, chosen per request.
      const routed = Object.values(spec.agents)
        .filter((o) => o.id !== a.id && o.profile)
        .map((o) => o.id);
      const targets = (named: string[], style: 'transfer' | 'delegate') =>
        [
          ...(named.length > 0 ? [named.join(', ')] : []),
          ...(a.routing === style ? [`by capability ${routed.join(', ') || '(no other agent has a profile)'}`] : []),
        ].join(' + ') || '(none)';
      return `  ${a.id}: ${a.model.provider}/${a.model.model}; tools ${a.tools.map((t) => t.name).join(', ') || '(none)'}; handoffs ${targets(a.handoffs, 'transfer')}; delegates ${targets(a.delegates ?? [], 'delegate')}`;
    }),
  ];
}

/** The team a diff argument names: a module, a JSON snapshot, or a chain's recorded team. */
async function teamOf(source: string): Promise<TeamSpec> {
  if (fs.existsSync(source))
    return source.endsWith('.json') ? snapshotFile(source) : loadTeamModule(source).team.spec();
  if (/\.([mc]?[jt]s|json)$/.test(source)) throw new UsageError(`no such file: ${source}`);
  const { client } = await connect();
  try {
    const { runId } = await client.workflow.getHandle(source).describe();
    const team = await teamSnapshot(client, source, runId);
    if (!team) throw new UsageError(`chain ${source} has not recorded its team yet`);
    return team;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError || (isGrpcServiceError(err) && err.code === 5)) {
      throw new UsageError(
        `"${source}" is neither a file nor a workflow id on ${temporalAddress()} (namespace ${client.options.namespace})`,
      );
    }
    throw err;
  }
}

function snapshotFile(file: string): TeamSpec {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${file} is not JSON: ${(err as Error).message}`);
  }
  const spec = value as Partial<TeamSpec> | null;
  if (typeof spec !== 'object' || spec === null || typeof spec.agents !== 'object' || !Array.isArray(spec.approvals)) {
    throw new UsageError(
      `${file} is not a team snapshot (baton team <module> --json writes one): it needs "agents" and "approvals"`,
    );
  }
  return spec as TeamSpec;
}
