/**
 * Pages of a run's history small enough to receive. Temporal fills a page by event count, so a page
 * that holds events near its 2 MB payload limit (signals, refused decisions, large tool results) can
 * be over gRPC's 4 MB message limit (Temporal's client sets its own limit under a key gRPC does not
 * read), and asking again for the same page fails the same way. Such a page is asked for again one
 * event at a time: an event's payloads are within Temporal's 2 MB limit.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

type HistoryRequest = temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryRequest;
type HistoryResponse = temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse;

/**
 * The channel option a connection needs to receive such pages whole: gRPC's receive limit, 128 MB.
 * Temporal's `Connection` means to set it but uses a key gRPC does not read, so connections left
 * at its defaults refuse any page over 4 MB, after retrying it for some 40 s. `connectBaton`, the
 * `baton` command and the dev servers baton starts set it; pass it in `channelArgs` to a
 * `Connection` of your own.
 */
export const HISTORY_RECEIVE_LIMIT = { 'grpc.max_receive_message_length': 128 * 2 ** 20 } as const;

/** The part of Temporal's workflow service a history reader uses. */
export interface HistoryService {
  getWorkflowExecutionHistory(request: HistoryRequest): Promise<HistoryResponse>;
}

/**
 * Pages asked for one event at a time after a page too large to receive: large events come in
 * bursts (a flood of signals), and each refusal costs the client's retries (some 40 s) before it
 * fails, so the reader steps over the burst rather than trying larger pages again.
 */
const ONE_BY_ONE = 64;
/** gRPC's status of a message over the receiver's limit. */
const RESOURCE_EXHAUSTED = 8;

/** One reader's pages of history: `next` asks for a page, one event a page for a while once one was too large. */
export class HistoryPages {
  /** Pages still to ask for one event at a time. */
  private small = 0;

  constructor(private readonly service: HistoryService) {}

  /** The next page of `request`'s run: of `pageSize` events (0, the server's own size), or of one while pages are too large. */
  async next(request: Omit<HistoryRequest, 'maximumPageSize'>, pageSize = 0): Promise<HistoryResponse> {
    for (;;) {
      const one = this.small > 0;
      try {
        const page = await this.service.getWorkflowExecutionHistory({
          ...request,
          maximumPageSize: one ? 1 : pageSize,
        });
        if (one) this.small--;
        return page;
      } catch (err) {
        if ((err as { code?: number }).code !== RESOURCE_EXHAUSTED || one) throw err;
        this.small = ONE_BY_ONE;
      }
    }
  }
}

/** The history of one run, as `fetchHistory()` gives it, in pages small enough to receive. */
export async function historyOf(
  client: Pick<Client, 'workflowService'> & { options: { namespace: string } },
  workflowId: string,
  runId?: string,
): Promise<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>> {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  const pages = new HistoryPages(client.workflowService);
  let nextPageToken: Uint8Array | undefined;
  for (;;) {
    const page = await pages.next({
      namespace: client.options.namespace,
      execution: { workflowId, runId },
      nextPageToken,
    });
    events.push(...(page.history?.events ?? []));
    if (!page.nextPageToken?.length) return { events };
    nextPageToken = page.nextPageToken;
  }
}
