import fs from 'node:fs';
import { Baton } from '../client/baton';
import type { BatchDecision, BatchItem, BatchOutcome } from '../client/batch';
import { InboxOptionError, type InboxItem, type InboxOptions } from '../client/inbox';
import { durationMs } from '../common/check';
import { integerOption, parse, UsageError } from './args';
import { connect } from './connect';
import type { Command } from './context';
import { cliSigner } from './signing';
import { TENANT_FLAG, tenantFromFlag } from './tenant';

/** `baton inbox`: what waits for a person across chains, soonest due first; `--approve`/`--reject` decide the page listed. */
export const inboxCommand: Command = {
  synopsis:
    'baton inbox [--as <name>] [--group <g>]… [--team t] [--agent a] [--tool t] [--min-age 10m] [--overdue] [--search text]\n  [--tenant <id>] [--limit N] [--page <token>] [--json] [(--approve [--comment c] | --reject [--reason r]) [--key <file>]]',
  summary: 'what waits for your decision across chains, soonest due first; decide similar calls together',
  help: `Options:
  --as <name>         whose inbox: what this approver may decide (named among the approvers, or open to
                      anyone); every waiting approval when absent; --as is who decides with --approve
  --group <g>         and what waits for this group (repeat for several)
  --team <t>          a team id (support) or version (support@2026-11-24)
  --agent <a>         the agent whose handoff or tool call waits
  --tool <t>          the tool whose calls wait
  --min-age <d>       waiting at least this long (10m, 2 hours)
  --overdue           past its deadline only
  --search <text>     words each listed approval contains (message, agents, tool, arguments, chain id)
  --tenant <id>       only the chains of this tenant (BatonTenant)
  --limit N           per page, 1 to 500 (default 50); --page <token> the next page (printed last)
  --json              print the page as JSON
  --approve, --reject decide every approval listed, each its own decision bound to its own call; the
                      calls must be alike (one tool with the same argument fields, or one handoff edge)
  --comment, --reason with --approve, --reject
  --key <file>        sign each decision with this Ed25519 private key (docs/signatures.md)

Lists from visibility (the approval search attributes chains write), not a query per chain: each line
shows when it is due (or "no deadline"), how long it has waited, chain, approval id and what waits.
With --approve/--reject, prints an outcome per approval; exit code 1 when any was not decided.`,
  async run(argv, { out }) {
    const { values, positionals } = parse(argv, {
      as: { type: 'string' },
      group: { type: 'string', multiple: true },
      team: { type: 'string' },
      agent: { type: 'string' },
      tool: { type: 'string' },
      'min-age': { type: 'string' },
      overdue: { type: 'boolean', default: false },
      search: { type: 'string' },
      limit: { type: 'string' },
      page: { type: 'string' },
      json: { type: 'boolean', default: false },
      approve: { type: 'boolean', default: false },
      reject: { type: 'boolean', default: false },
      comment: { type: 'string' },
      reason: { type: 'string' },
      key: { type: 'string' },
      kid: { type: 'string' },
      ...TENANT_FLAG,
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    if (values.approve && values.reject) throw new UsageError('give --approve or --reject, not both');
    const decision = values.approve ? 'approve' : values.reject ? 'reject' : undefined;
    if (decision && !values.as) throw new UsageError(`--${decision} needs --as <approver>: who decides`);
    const minAge = values['min-age'];
    const minAgeMs = minAge !== undefined ? durationMs(minAge) : undefined;
    if (minAge !== undefined && minAgeMs === undefined)
      throw new UsageError(`--min-age must be a duration such as 10m or "2 hours", got ${JSON.stringify(minAge)}`);
    const names = [...(values.as ? [values.as] : []), ...(values.group ?? [])];
    const limit = integerOption('limit', values.limit, 1, 500);
    const options: InboxOptions = {
      ...(names.length > 0 ? { for: names } : {}),
      ...(values.team ? { team: values.team } : {}),
      ...(values.agent ? { agent: values.agent } : {}),
      ...(values.tool ? { tool: values.tool } : {}),
      ...(minAgeMs !== undefined ? { minAgeMs } : {}),
      ...(values.overdue ? { overdue: true } : {}),
      ...(values.search ? { search: values.search } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(values.page ? { pageToken: values.page } : {}),
      ...(values.as ? { reveal: values.as } : {}),
      ...(values.tenant !== undefined ? { tenant: tenantFromFlag(values.tenant)! } : {}),
    };
    const baton = new Baton({ client: (await connect()).client });
    const page = await baton
      .inbox(options)
      .catch((err: unknown) => Promise.reject(err instanceof InboxOptionError ? new UsageError(err.message) : err));
    if (!decision) {
      if (values.json) out(JSON.stringify(page, null, 2));
      else printPage(page.approvals, page.total, page.nextPageToken, out);
      return 0;
    }
    if (page.approvals.length === 0) {
      out('nothing to decide: no approval matches');
      return 0;
    }
    const items = page.approvals.map(({ workflowId, approvalId, tool }) => ({
      workflowId,
      approvalId,
      ...(tool ? { callHash: tool.callHash } : {}),
    }));
    return decideItems(
      baton,
      { approvals: items, decision, approver: values.as!, ...notes(values), ...cliSigner(values.key, values.kid) },
      values.json,
      out,
    );
  },
};

/** `baton approve|reject --batch <file|->`: decide the approvals a JSON list names (`[{workflowId, approvalId, callHash?}]`). */
export async function decideBatchFile(
  file: string,
  batch: Omit<BatchDecision, 'approvals'>,
  json: boolean,
  out: (line: string) => void,
): Promise<number> {
  let items: unknown;
  try {
    items = JSON.parse(fs.readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch (err) {
    throw new UsageError(
      `--batch ${file}: not a readable JSON list of {workflowId, approvalId} (${(err as Error).message})`,
    );
  }
  if (!Array.isArray(items))
    throw new UsageError(
      `--batch ${file} must hold a JSON list of {workflowId, approvalId, callHash?}, as \`baton inbox --json\` lists them`,
    );
  const approvals = items.map((i: Partial<BatchItem>) => ({
    workflowId: i?.workflowId,
    approvalId: i?.approvalId,
    ...(i?.callHash ? { callHash: i.callHash } : {}),
  })) as BatchItem[];
  return decideItems(new Baton({ client: (await connect()).client }), { ...batch, approvals }, json, out);
}

async function decideItems(
  baton: Baton,
  batch: BatchDecision,
  json: boolean,
  out: (line: string) => void,
): Promise<number> {
  const outcomes = await baton.decideBatch(batch);
  if (json) out(JSON.stringify(outcomes, null, 2));
  else for (const o of outcomes) out(outcomeLine(o));
  const failed = outcomes.filter((o) => !o.ok).length;
  if (!json)
    out(`${outcomes.length - failed} of ${outcomes.length} ${batch.decision === 'approve' ? 'approved' : 'rejected'}`);
  return failed > 0 ? 1 : 0;
}

function notes(values: { comment?: string; reason?: string }) {
  return {
    ...(values.comment !== undefined ? { comment: values.comment } : {}),
    ...(values.reason !== undefined ? { reason: values.reason } : {}),
  };
}

function outcomeLine(o: BatchOutcome): string {
  return o.ok
    ? `${o.workflowId} ${o.approvalId}: ${o.record.outcome} by ${o.record.approver}`
    : `${o.workflowId} ${o.approvalId}: not decided: ${o.reason}`;
}

function printPage(items: InboxItem[], total: number, next: string | undefined, out: (line: string) => void): void {
  if (items.length === 0) return out('nothing waits for a decision');
  for (const i of items) {
    const due = i.dueAt ? `${i.overdue ? 'OVERDUE ' : 'due '}${i.dueAt}` : 'no deadline';
    const what = i.tool ? `${i.from} → ${i.tool.name} ${i.tool.argumentsText}` : `${i.from} → ${i.to}: ${i.message}`;
    out(`${due}  waited ${Math.round(i.ageMs / 1000)}s  ${i.workflowId}  ${i.approvalId}  ${what}`);
  }
  out(`${items.length} of ${total}${next ? `; next page: --page ${next}` : ''}`);
}
