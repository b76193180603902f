import { durationMs } from '../common/check';
import { Baton } from '../client/baton';
import { agentEdgeStats } from '../eval/stats/agents';
import { approvalStats, formatApprovalStats } from '../eval/stats/approvals';
import { experimentStats } from '../eval/stats/experiment';
import { formatAgentEdgeStats, formatExperimentStats } from '../eval/stats/format';
import { integerOption, parse, UsageError } from './args';
import { connect } from './connect';
import type { Command } from './context';

/** `baton stats --experiment <id>` and `baton stats --by agent|edge`: outcomes from visibility and history. */
export const statsCommand: Command = {
  synopsis:
    'baton stats (--experiment <id> | (--by agent|edge | --approvals) [--since 1h] [--query <visibility query>]) [--limit N] [--json]',
  summary: "an experiment's outcomes per variant with significance tests, or success per agent and per handoff edge",
  help: `--experiment <id>    per variant: chains, success rate, failures by error, handoffs, approvals rejected,
                     guardrail trips, tokens, cost (when the models' usage carries it), latency p50/p95;
                     then each variant against the first: Fisher's exact test for the rates, the
                     Mann-Whitney U test for latency, tokens and handoffs (exact up to 60 chains in
                     all), p < 0.05 is significant; with fewer than 4 ended chains in each variant no
                     test can show a difference, and the report says when there are too few to tell
--by agent           per agent: its turns at chains and how they ended (answered, handed off, failed by
                     error), the approvals about it rejected, how long its turns took
--by edge            per handoff edge: handoffs asked for and how they ended, how the chains that took it
                     ended, approvals rejected, how long the target's turn took
--approvals          approver workload: time to decision p50/p95 by team, approver and tool, SLA
                     breaches (timed out, or decided past the deadline), escalations and reminders on
                     the record, and what waits now by age (from the inbox) and overdue
--since <duration>   chains started in the window, e.g. 30m, 1h, 7 days (default 1h)
--query <query>      more of the visibility query, e.g. 'BatonTeam="support@v2"'
--limit N            chains read at most (per variant; default 1000)
--json               print JSON

Figures come from the chains' histories, read from the server, so they are exact for the chains read.`,
  async run(argv, { out }) {
    const { values, positionals } = parse(argv, {
      experiment: { type: 'string' },
      by: { type: 'string' },
      approvals: { type: 'boolean', default: false },
      since: { type: 'string' },
      query: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    if ([values.experiment !== undefined, values.by !== undefined, values.approvals].filter(Boolean).length !== 1)
      throw new UsageError('give one of --experiment <id>, --by agent|edge, --approvals');
    const limit = integerOption('limit', values.limit, 1, 100_000);
    if (values.by !== undefined && values.by !== 'agent' && values.by !== 'edge')
      throw new UsageError(`--by must be agent or edge, got ${JSON.stringify(values.by)}`);
    if (values.experiment !== undefined && (values.since !== undefined || values.query !== undefined))
      throw new UsageError('--since and --query go with --by; an experiment reads all its chains');
    const since = values.since !== undefined ? sinceOf(values.since) : undefined;
    const { client } = await connect();
    if (values.experiment !== undefined) {
      const stats = await experimentStats(
        client,
        new Baton({ client }).experiments,
        values.experiment,
        limit !== undefined ? { limit } : {},
      );
      for (const line of values.json ? [JSON.stringify(stats, null, 2)] : formatExperimentStats(stats)) out(line);
      return 0;
    }
    if (values.approvals) {
      const stats = await approvalStats(client, {
        ...(since ? { since } : {}),
        ...(values.query !== undefined ? { query: values.query } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
      for (const line of values.json ? [JSON.stringify(stats, null, 2)] : formatApprovalStats(stats)) out(line);
      return 0;
    }
    const by = values.by as 'agent' | 'edge';
    const stats = await agentEdgeStats(client, {
      ...(since ? { since } : {}),
      ...(values.query !== undefined ? { query: values.query } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
    const shown =
      by === 'agent'
        ? { query: stats.query, chains: stats.chains, agents: stats.agents }
        : { query: stats.query, chains: stats.chains, edges: stats.edges };
    for (const line of values.json ? [JSON.stringify(shown, null, 2)] : formatAgentEdgeStats(stats, by)) out(line);
    return 0;
  },
};

/** A window's start: a duration back from now (`30m`, `1h`, `7 days`) or an ISO 8601 time. */
function sinceOf(text: string): Date {
  const short = /^(\d+)\s*(s|m|h|d)$/.exec(text.trim());
  const ms = short
    ? Number(short[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[short[2] as 's' | 'm' | 'h' | 'd']
    : durationMs(text);
  if (ms !== undefined) return new Date(Date.now() - ms);
  const at = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isNaN(at)) return new Date(at);
  throw new UsageError(`--since must be a duration (30m, 1h, 7 days) or an ISO 8601 time, got ${JSON.stringify(text)}`);
}
