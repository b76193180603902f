/**
 * What the client needs to redact a chain's sensitive tool arguments where it shows them: the
 * chain's team snapshot, read from the start of its history (`loadTeam`'s result, an activity or
 * a local one, or the team a continued run carries), and the redaction of the waiting approvals `baton.pending()` lists.
 */
import type { Client } from '@temporalio/client';
import { activityName, withLocalActivities } from '../audit/history';
import type { PendingApproval } from '../common/approvals';
import { ActivityType } from '../common/messages';
import type { HandoffRunInput } from '../common/run';
import { redactPendingApproval, type SensitiveArguments, TeamRedaction } from '../common/sensitive';
import type { TeamSpec } from '../common/team';
import { decodeHistory } from '../payloads/history';
import { HistoryPages } from '../payloads/historyPages';
import { type PendingHandoff, toPendingHandoff, toWaitingApproval } from './pending';
import { fromPayloads } from '../payloads/read';

/** History pages read at most while looking for a run's team snapshot (it is among a run's first events). */
const MAX_PAGES = 5;
/** Team snapshots kept per client, by run id. */
const MAX_CACHED = 500;

/** The team snapshot of a run, from its history; `undefined` when the run has not recorded one yet. */
export async function teamSnapshot(client: Client, workflowId: string, runId: string): Promise<TeamSpec | undefined> {
  const loadTeam = new Set<string>();
  const pages = new HistoryPages(client.workflowService);
  let nextPageToken: Uint8Array | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { history, nextPageToken: next } = await pages.next(
      {
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        ...(nextPageToken ? { nextPageToken } : {}),
      },
      100,
    );
    if (history) await decodeHistory(history, client.options.loadedDataConverter.payloadCodecs);
    // A new run records its snapshot with a local activity: its marker reads as the activity.
    for (const e of withLocalActivities(history?.events ?? [])) {
      const started = e.workflowExecutionStartedEventAttributes;
      const resume = started ? fromPayloads<HandoffRunInput>(started.input)?.resume : undefined;
      // A migration carries the team it leaves; the run's own snapshot follows.
      const carried = resume && !resume.migrate ? resume.team : undefined;
      if (carried) return carried;
      if (activityName(e) === ActivityType.LOAD_TEAM) loadTeam.add(String(e.eventId));
      const done = e.activityTaskCompletedEventAttributes;
      if (done && loadTeam.has(String(done.scheduledEventId))) return fromPayloads<TeamSpec>(done.result);
    }
    if (!next?.length) return undefined;
    nextPageToken = next;
  }
  return undefined;
}

/** Team snapshots of runs, read once each: a run's snapshot never changes. */
export class TeamSnapshots {
  readonly #cache = new Map<string, Promise<TeamRedaction>>();

  constructor(private readonly client: Client) {}

  /**
   * The redaction of the run `runId`'s team (nothing redacted when its history cannot be read). A
   * read that failed (the server away, the call cancelled) is not kept: the next asks again.
   */
  of(workflowId: string, runId: string): Promise<TeamRedaction> {
    let found = this.#cache.get(runId);
    if (!found) {
      const read: Promise<TeamRedaction> = teamSnapshot(this.client, workflowId, runId).then(
        (team) => new TeamRedaction(team),
        () => {
          if (this.#cache.get(runId) === read) this.#cache.delete(runId);
          return new TeamRedaction(undefined);
        },
      );
      found = read;
      if (this.#cache.size >= MAX_CACHED) this.#cache.delete(this.#cache.keys().next().value!);
      this.#cache.set(runId, found);
    }
    return found;
  }
}

/** The redaction of the team snapshot of chain `workflowId`'s latest run. */
export async function chainRedaction(client: Client, workflowId: string): Promise<TeamRedaction> {
  const { runId } = await client.workflow.getHandle(workflowId).describe();
  return new TeamRedaction(await teamSnapshot(client, workflowId, runId).catch(() => undefined));
}

/**
 * A waiting approval with its tool call's sensitive arguments shown as `"[redacted]"`, for a viewer
 * who may not see them; as it is when nothing is sensitive or it is redacted already.
 * @example
 * const all = await baton.pending({ reveal: true });
 * const shown = all.map((p) => (mayDecide(viewer, p) ? p : redactPending(p)));
 */
export function redactPending<P extends PendingApproval & { sensitive?: SensitiveArguments }>(p: P): P;
export function redactPending(p: PendingHandoff): PendingHandoff;
export function redactPending(
  p: (PendingApproval | PendingHandoff) & { sensitive?: SensitiveArguments },
): PendingApproval | PendingHandoff {
  if (!p.sensitive || !p.sensitive.revealed) return p;
  const spec = { arguments: p.sensitive.arguments };
  const sensitive = { ...p.sensitive, revealed: false };
  // A listed approval's tool call carries its arguments as an object and as text: the text is redacted, the object read from it again.
  if ('approvalId' in p) return toPendingHandoff({ ...redactPendingApproval(toWaitingApproval(p), spec), sensitive });
  return { ...redactPendingApproval(p, spec), sensitive };
}

/** Whether `viewer` may decide `p`: its policy names them among its approvers, or names none. */
export function mayDecideAs(viewer: string, p: Pick<PendingApproval, 'approvers'>): boolean {
  return !p.approvers || p.approvers.includes(viewer);
}
