/**
 * The inbox: what waits for a person across chains, sorted by when it is due, filtered, searched and
 * paged. One visibility query narrows the chains by baton's approval search attributes
 * (`BatonApprovers`, `BatonApprovalTools`, `BatonApprovalDue`); the chains' memos hold what waits,
 * so nothing asks a worker. Only the page shown reads team snapshots (to redact sensitive arguments).
 */
import type { Client } from '@temporalio/client';
import type { PendingApproval } from '../common/approvals';
import {
  ANY_APPROVER,
  BatonApprovalDue,
  BatonApprovalTools,
  BatonApprovers,
  BatonPendingApprovals,
  BatonStatusAttribute,
  BatonTenant,
  PARENT_MEMO,
  PENDING_MEMO,
  TEAM_MEMO,
} from '../common/messages';
import { BatonStatus, type ParentLink } from '../common/run';
import { type PendingHandoff, toPendingHandoff, type WaitingApproval } from './pending';
import type { TeamSnapshots } from './sensitive';
import { inTenant, tenantClause, withSensitivity } from './waiting';

/** The most approvals one page holds. */
export const MAX_INBOX_PAGE = 500;

/** What `baton.inbox()` lists. Every field is optional; together they narrow the list. */
export interface InboxOptions {
  /**
   * Whose inbox: approvals any of these names may decide (named among a policy's `approvers`, or the
   * policy names none), e.g. a person and their groups. @default everyone's: every waiting approval
   */
  for?: string | readonly string[];
  /** Only the chains of this tenant; `null` only chains without a tenant. @default every chain */
  tenant?: string | null;
  /** The team's id (`support`) or version (`support@2026-11-24`). */
  team?: string;
  /** The agent whose handoff or tool call waits. */
  agent?: string;
  /** The tool whose calls wait. */
  tool?: string;
  /** Only approvals requested at least this long ago, in milliseconds. */
  minAgeMs?: number;
  /** Only approvals past their due time (their policy's `dueIn`, else their timeout). */
  overdue?: boolean;
  /** Words every listed approval contains (case-insensitive), in its message, agents, tool, arguments or chain id. */
  search?: string;
  /** How many per page, 1 to `MAX_INBOX_PAGE`. @default 50 */
  limit?: number;
  /** The `nextPageToken` of the page before. */
  pageToken?: string;
  /** Who sees sensitive arguments' real values, as `baton.pending({reveal})`. @default nobody */
  reveal?: string | true;
}

/** A waiting approval as the inbox lists it. */
export interface InboxItem extends PendingHandoff {
  /** When it is due (its policy's `dueIn`, else its timeout), if it has either. */
  dueAt?: string;
  /** Past its deadline. */
  overdue: boolean;
  /**
   * What approvals that may be decided together share: the tool and its arguments' field names
   * (`tool:refund(amount,orderId)`), or the handoff's edge (`handoff:triage>billing`).
   */
  similarKey: string;
}

/** One page of the inbox. */
export interface InboxPage {
  approvals: InboxItem[];
  /** How many match, on every page. */
  total: number;
  /** Pass as `pageToken` for the next page; absent on the last. */
  nextPageToken?: string;
}

/** A bad inbox option: names the option and what would be valid. */
export class InboxOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The page of the inbox `options` ask for. */
export async function listInbox(
  client: Client,
  teams: () => TeamSnapshots,
  options: InboxOptions = {},
): Promise<InboxPage> {
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_INBOX_PAGE)
    throw new InboxOptionError(`limit must be a whole number from 1 to ${MAX_INBOX_PAGE}, got ${String(limit)}`);
  const after = options.pageToken !== undefined ? readToken(options.pageToken) : undefined;
  // A first page reads what waits now; the pages after it read the list it read, while that is recent.
  const key = snapshotKey(options);
  const taken = after ? snapshots(client).get(key) : undefined;
  const recent = taken !== undefined && Date.now() - taken.at < SNAPSHOT_MS;
  const matched = recent ? taken.matched : await readMatches(client, options);
  // A list read afresh (a first page, or a later one whose list had aged) serves the pages after it.
  if (!recent) remember(snapshots(client), key, matched);
  const start = after ? matched.findIndex((i) => byDue(i, after) > 0) : 0;
  const page = start < 0 ? [] : matched.slice(start, start + limit);
  const last = page[page.length - 1];
  const more = start >= 0 && start + limit < matched.length;
  const shown = await Promise.all(
    page.map(async (i) => ({ ...i, ...toPendingHandoff(await withSensitivity(teams, toWaiting(i), options.reveal)) })),
  );
  return { approvals: shown, total: matched.length, ...(more && last ? { nextPageToken: token(last) } : {}) };
}

/**
 * How long the pages after a first page read the list it read: walking 10,000 approvals 500 at a
 * time reads visibility once rather than twenty times. A decision made meanwhile shows until then,
 * as it would on a page already shown.
 */
const SNAPSHOT_MS = 10_000;
/** Lists kept per client (one per distinct filter), the oldest dropped first. */
const MAX_SNAPSHOTS = 8;
const byClient = new WeakMap<Client, Map<string, { at: number; matched: InboxItem[] }>>();

function snapshots(client: Client): Map<string, { at: number; matched: InboxItem[] }> {
  let kept = byClient.get(client);
  if (!kept) byClient.set(client, (kept = new Map()));
  return kept;
}

function remember(kept: Map<string, { at: number; matched: InboxItem[] }>, key: string, matched: InboxItem[]): void {
  kept.delete(key);
  kept.set(key, { at: Date.now(), matched });
  for (const old of kept.keys()) if (kept.size > MAX_SNAPSHOTS) kept.delete(old);
}

/** What selects a list: every option but the page and who sees sensitive values (applied to the page shown). */
function snapshotKey(o: InboxOptions): string {
  const { limit: _l, pageToken: _p, reveal: _r, ...filters } = o;
  return JSON.stringify(filters, Object.keys(filters).sort());
}

/** Every waiting approval that matches `options`, sorted by due time. */
async function readMatches(client: Client, options: InboxOptions): Promise<InboxItem[]> {
  const now = Date.now();
  const matched: InboxItem[] = [];
  for await (const wf of client.workflow.list({
    query: inboxQuery(options, now) + tenantClause(options.tenant),
    pageSize: 1000,
  })) {
    const tenant = wf.typedSearchAttributes.get(BatonTenant);
    if (!inTenant(tenant, options.tenant)) continue;
    const waiting = (wf.memo?.[PENDING_MEMO] ?? []) as PendingApproval[];
    if (waiting.length === 0) continue;
    const parent = wf.memo?.[PARENT_MEMO] as ParentLink | undefined;
    const team = (wf.memo?.[TEAM_MEMO] as { id?: unknown } | undefined)?.id;
    for (const p of waiting) {
      const item = inboxItem(
        {
          ...p,
          workflowId: wf.workflowId,
          runId: wf.runId,
          ageMs: now - Date.parse(p.requestedAt),
          ...(parent ? { parentWorkflowId: parent.workflowId, rootWorkflowId: parent.rootWorkflowId } : {}),
          ...(typeof team === 'string' ? { team } : {}),
          ...(tenant !== undefined ? { tenant } : {}),
        },
        now,
      );
      if (matches(item, options)) matched.push(item);
    }
  }
  return matched.sort(byDue);
}

/** The visibility query: chains awaiting approval, narrowed by the approval search attributes where a chain has them. */
export function inboxQuery(options: Pick<InboxOptions, 'for' | 'tool' | 'overdue'>, now: number): string {
  const clauses = [`${BatonStatusAttribute.name} = "${BatonStatus.AWAITING_APPROVAL}"`, 'ExecutionStatus = "Running"'];
  // Chains started before the attributes (or on a worker whose namespace lacked them) have none: the memo decides for them.
  const narrowed = (clause: string) => clauses.push(`(${clause} OR ${BatonPendingApprovals.name} IS NULL)`);
  const names = typeof options.for === 'string' ? [options.for] : options.for;
  if (names) narrowed(`${BatonApprovers.name} IN (${[...names, ANY_APPROVER].map(quoted).join(', ')})`);
  if (options.tool !== undefined) narrowed(`${BatonApprovalTools.name} = ${quoted(options.tool)}`);
  if (options.overdue) narrowed(`${BatonApprovalDue.name} < ${quoted(new Date(now).toISOString())}`);
  return clauses.join(' AND ');
}

/** The key approvals decided together share (see {@link InboxItem.similarKey}). */
export function similarKey(p: Pick<PendingApproval, 'from' | 'to' | 'tool'>): string {
  if (!p.tool) return `handoff:${p.from}>${p.to}`;
  let fields: string[] = [];
  try {
    const args: unknown = JSON.parse(p.tool.arguments);
    if (args !== null && typeof args === 'object' && !Array.isArray(args)) fields = Object.keys(args).sort();
  } catch {
    // Arguments that are not JSON have no fields: they are alike only with each other.
  }
  return `tool:${p.tool.name}(${fields.join(',')})`;
}

function inboxItem(p: WaitingApproval, now: number): InboxItem {
  const due = p.dueAt ?? p.expiresAt;
  const overdue = due !== undefined && Date.parse(due) <= now;
  return { ...toPendingHandoff(p), ...(due ? { dueAt: due } : {}), overdue, similarKey: similarKey(p) };
}

function toWaiting(i: InboxItem): WaitingApproval {
  const { approvalId: _a, tool, dueAt: _d, overdue: _o, similarKey: _s, ...rest } = i;
  return tool ? { ...rest, tool: { ...tool, arguments: tool.argumentsText } } : rest;
}

function matches(i: InboxItem, o: InboxOptions): boolean {
  const names = typeof o.for === 'string' ? [o.for] : o.for;
  if (names && i.approvers && !i.approvers.some((a) => names.includes(a))) return false;
  if (o.team !== undefined && i.team !== o.team && !i.team?.startsWith(`${o.team}@`)) return false;
  if (o.agent !== undefined && i.from !== o.agent) return false;
  if (o.tool !== undefined && i.tool?.name !== o.tool) return false;
  if (o.minAgeMs !== undefined && i.ageMs < o.minAgeMs) return false;
  if (o.overdue && !i.overdue) return false;
  if (o.search) {
    const text = [i.message, i.from, i.to, i.tool?.name ?? '', i.tool?.argumentsText ?? '', i.workflowId]
      .join('\n')
      .toLowerCase();
    if (
      !o.search
        .toLowerCase()
        .split(/\s+/)
        .filter(Boolean)
        .every((w) => text.includes(w))
    )
      return false;
  }
  return true;
}

/** Due first (soonest first, those without a deadline last), then oldest, then by chain and id: a total order. */
function byDue(a: SortKey, b: SortKey): number {
  // Code-unit order (not the locale's, which ranks punctuation before digits): `~` follows every ISO time.
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return (
    cmp(a.dueAt ?? '~', b.dueAt ?? '~') ||
    cmp(a.requestedAt, b.requestedAt) ||
    cmp(a.workflowId, b.workflowId) ||
    cmp(a.approvalId, b.approvalId)
  );
}

type SortKey = Pick<InboxItem, 'dueAt' | 'requestedAt' | 'workflowId' | 'approvalId'>;

/** The page token: where the page ended, so the next starts after it however the list changed meanwhile. */
function token(i: SortKey): string {
  return Buffer.from(JSON.stringify([i.dueAt ?? null, i.requestedAt, i.workflowId, i.approvalId])).toString(
    'base64url',
  );
}

function readToken(text: string): SortKey {
  try {
    const [dueAt, requestedAt, workflowId, approvalId] = JSON.parse(
      Buffer.from(text, 'base64url').toString(),
    ) as unknown[];
    if (
      (dueAt === null || typeof dueAt === 'string') &&
      [requestedAt, workflowId, approvalId].every((v) => typeof v === 'string')
    ) {
      return { ...(dueAt !== null ? { dueAt } : {}), requestedAt, workflowId, approvalId } as SortKey;
    }
  } catch {
    // Reported below.
  }
  throw new InboxOptionError(
    'pageToken is not one the inbox gave: pass the nextPageToken of the page before, or none for the first page',
  );
}

function quoted(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
