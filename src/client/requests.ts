/**
 * What a chain was asked to do and by whom, as its start recorded it: what a person deciding one
 * of its approvals needs to tell it from other chains.
 */
import type { Client } from '@temporalio/client';
import { InvalidRunInputError } from '../common/errors';
import { STARTED_BY_MEMO } from '../common/messages';
import type { HandoffRunInput, ParentLink } from '../common/run';
import { scrub, sensitiveValues, type SensitiveArguments } from '../common/sensitive';
import type { PendingApproval } from '../common/approvals';
import { decodeHistory } from '../payloads/history';
import { fromPayload, fromPayloads } from '../payloads/read';

/** How much of a chain's input is shown beside its approvals. */
export const REQUEST_SHOWN = 400;
/** How much is kept to redact from: a value cut at the end of what is shown is still found. */
const REQUEST_KEPT = REQUEST_SHOWN + 256;

/** A chain's request: the agent and input it started with, when, and who asked for it when known. */
export interface ChainRequest {
  agent: string;
  /** The input, at most {@link REQUEST_SHOWN} characters. */
  input: string;
  /** Set when the input was longer and is cut here. */
  truncated?: boolean;
  startedAt?: string;
  /** Who asked for the chain, as the client that started it said (`StartOptions.startedBy`; the HTTP service's caller). */
  startedBy?: string;
  /** The identity of the Temporal client that started it (by default `<pid>@<host>`). */
  client?: string;
  /** When the chain is a specialist: the chain that delegated to it. */
  parent?: ParentLink;
}

/** A request as read: the start of its input, and the input's length. */
export type StoredRequest = Omit<ChainRequest, 'input' | 'truncated'> & { text: string; length: number };

/** The memo of a chain asked for by `startedBy` (`StartOptions.startedBy`); `InvalidRunInputError` when it is not a name. */
export function startedByMemo(startedBy: unknown): { memo?: Record<string, string> } {
  if (startedBy === undefined) return {};
  if (typeof startedBy !== 'string' || startedBy.trim() === '' || startedBy.length > 200) {
    const got =
      typeof startedBy === 'string' && startedBy.length > 200
        ? `${startedBy.length} characters`
        : JSON.stringify(startedBy);
    throw new InvalidRunInputError([`"startedBy" must be a name of 1 to 200 characters, got ${got}`]);
  }
  return { memo: { [STARTED_BY_MEMO]: startedBy } };
}

/** The requests of chains, read once each (a chain's start never changes) and kept for the most recent `max` chains. */
export class ChainRequests {
  private readonly known = new Map<string, Promise<StoredRequest | undefined>>();

  constructor(
    private readonly client: Client,
    private readonly max = 1_000,
  ) {}

  /** The request of the chain `workflowId`, read from the start of its run `runId` (its latest when absent); `undefined` when it cannot be read. */
  of(workflowId: string, runId?: string): Promise<StoredRequest | undefined> {
    let found = this.known.get(workflowId);
    if (!found) {
      found = readRequest(this.client, workflowId, runId).catch(() => undefined);
      this.known.set(workflowId, found);
      if (this.known.size > this.max) this.known.delete(this.known.keys().next().value!);
      // A chain that could not be read is tried again next time.
      void found.then((r) => r ?? this.known.delete(workflowId));
    }
    return found;
  }
}

async function readRequest(
  client: Client,
  workflowId: string,
  runId: string | undefined,
): Promise<StoredRequest | undefined> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId, ...(runId ? { runId } : {}) },
    maximumPageSize: 1,
  });
  if (!history) return undefined;
  await decodeHistory(history, client.options.loadedDataConverter.payloadCodecs);
  const e = history.events?.[0];
  const started = e?.workflowExecutionStartedEventAttributes;
  const input = fromPayloads<HandoffRunInput>(started?.input);
  if (!started || typeof input?.agent !== 'string' || typeof input.input !== 'string') return undefined;
  const by = started.memo?.fields?.[STARTED_BY_MEMO];
  const startedBy = by ? fromPayload<unknown>(by) : undefined;
  const t = e!.eventTime;
  return {
    agent: input.agent,
    text: input.input.slice(0, REQUEST_KEPT),
    length: input.input.length,
    ...(t
      ? { startedAt: new Date(Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)).toISOString() }
      : {}),
    ...(typeof startedBy === 'string' ? { startedBy } : {}),
    ...(started.identity ? { client: started.identity } : {}),
    ...(input.parent ? { parent: input.parent } : {}),
  };
}

/**
 * The request as a viewer of an approval sees it: its input cut to {@link REQUEST_SHOWN}
 * characters; for a waiting tool call whose sensitive arguments the viewer may not see (`revealed`
 * false; `tool.arguments` holding the real values), with their values redacted from the text.
 */
export function requestAsSeen(
  request: StoredRequest,
  p: Pick<PendingApproval, 'tool'> & { sensitive?: SensitiveArguments },
  revealed: boolean,
): ChainRequest {
  const { text, length, ...rest } = request;
  const hidden =
    !revealed && p.tool && p.sensitive ? sensitiveValues(p.tool.arguments, { arguments: p.sensitive.arguments }) : [];
  const input = scrub(text, hidden);
  return {
    ...rest,
    input: input.slice(0, REQUEST_SHOWN),
    ...(length > REQUEST_SHOWN || input.length > REQUEST_SHOWN ? { truncated: true } : {}),
  };
}
