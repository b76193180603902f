/**
 * One chain, followed live in React: its events (model and tool calls, handoffs, approvals,
 * delegations, its end) and the text of its model calls as it forms, from the service's
 * `GET /v1/runs/{id}/stream`. A dropped connection resumes after the last event it had
 * (`Last-Event-ID`), so nothing is shown twice or missed; replaced text is dropped as it is replaced.
 */
import { useEffect, useState } from 'react';
import { applyChange, type TextChange } from '../streams/board';
import { batonFetch, BatonRequestError, useBatonConnection, type BatonConnection } from './connection';
import { readServerSentEvents } from './sse';

/** An event of the chain as the stream sends it (`kind`: `model_call`, `handoff`, `approval_requested`, `completed`, …; docs/service.md). */
export interface RunEventJson {
  kind: string;
  /** When it happened (ISO 8601). */
  at: string;
  runId: string;
  [field: string]: unknown;
}

/** The text one model call has written: the answer history records once the call has ended. */
export interface RunCallText {
  /** The chain whose model wrote it (a specialist's own id inside a delegation). */
  workflowId: string;
  /** The call, `<agent>#<n>`. */
  call: string;
  agent: string;
  text: string;
}

/** What {@link useRun} gives. */
export interface RunView {
  /** `connecting` until the stream answers; `running` while the chain runs; then how it ended. */
  status: 'idle' | 'connecting' | 'running' | 'completed' | 'failed' | 'ended';
  /** The chain's events in order (text excluded). */
  events: RunEventJson[];
  /** Each model call's text, in the order the calls began writing. */
  calls: RunCallText[];
  /** The text of the call that wrote last: the answer as it forms. */
  text: string;
  /** The chain's result (`output`, `finalAgent`, `handoffChain`, `usage`) once it completed. */
  result?: { output: unknown; finalAgent: string; [field: string]: unknown };
  /** Why the chain failed (its typed error's `type` and `message`), or why it cannot be followed (a `BatonRequestError`). */
  error?: { type?: string; message: string };
}

const ENDS: Record<string, RunView['status']> = { completed: 'completed', failed: 'failed', ended: 'ended' };
/** How long to wait before reconnecting, at first and at most. */
const RETRY_MS = [500, 10_000] as const;

/**
 * Follow chain `id` (a `handoffRun` workflow id) from its start to its end; `undefined` follows nothing.
 * @example const { events, text, status, result } = useRun(workflowId);
 */
export function useRun(id: string | undefined): RunView {
  const connection = useBatonConnection('useRun');
  const [view, setView] = useState<RunView>(idle);
  useEffect(() => {
    if (id === undefined) {
      setView(idle());
      return;
    }
    setView({ ...idle(), status: 'connecting' });
    const abort = new AbortController();
    void follow(connection, id, abort.signal, (change) => setView((v) => change(v)));
    return () => abort.abort();
  }, [connection, id]);
  return view;
}

function idle(): RunView {
  return { status: 'idle', events: [], calls: [], text: '' };
}

/** Read the chain's stream into `update` until it ends, reconnecting after the last event had. */
async function follow(
  connection: BatonConnection,
  id: string,
  signal: AbortSignal,
  update: (change: (v: RunView) => RunView) => void,
): Promise<void> {
  let lastId: string | undefined;
  let delay: number = RETRY_MS[0];
  while (!signal.aborted) {
    try {
      const headers: Record<string, string> = {
        accept: 'text/event-stream',
        ...(lastId ? { 'last-event-id': lastId } : {}),
      };
      const response = await batonFetch(connection, `/v1/runs/${encodeURIComponent(id)}/stream`, { headers, signal });
      update((v) => (v.status === 'connecting' ? { ...v, status: 'running' } : v));
      delay = RETRY_MS[0];
      for await (const e of readServerSentEvents(response.body!)) {
        if (signal.aborted) return;
        if (e.id !== undefined) lastId = e.id;
        const body = JSON.parse(e.data) as Record<string, unknown>;
        if (e.event === 'error')
          throw new BatonRequestError(
            String(body.detail ?? body.title ?? 'the stream failed'),
            Number(body.status ?? 500),
            body,
          );
        update((v) => withEvent(v, e.event, body));
        if (ENDS[e.event]) return;
      }
    } catch (err) {
      if (signal.aborted) return;
      // A chain that is not there, or not the caller's to read, stays so: say why and stop.
      if (err instanceof BatonRequestError && err.status >= 400 && err.status < 500) {
        update((v) => ({ ...v, status: 'ended', error: { message: err.message } }));
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, RETRY_MS[1]);
  }
}

/** The view with one more item of the stream. */
function withEvent(v: RunView, kind: string, body: Record<string, unknown>): RunView {
  if (kind === 'text' || kind === 'text_reset') return withText(v, body as unknown as TextChange);
  if (kind === 'text_unavailable') return v;
  const event = body as RunEventJson;
  const next = { ...v, events: [...v.events, event] };
  if (kind === 'completed') return { ...next, status: 'completed', result: event.result as RunView['result'] };
  if (kind === 'failed') return { ...next, status: 'failed', error: event.error as RunView['error'] };
  if (kind === 'ended')
    return { ...next, status: 'ended', error: { message: `the chain was ${String(event.status).replace('_', ' ')}` } };
  return next;
}

function withText(v: RunView, change: TextChange): RunView {
  const at = v.calls.findIndex((c) => c.workflowId === change.workflowId && c.call === change.call);
  const had =
    at >= 0 ? v.calls[at]! : { workflowId: change.workflowId, call: change.call, agent: change.agent, text: '' };
  const call = { ...had, text: applyChange(had.text, change) };
  const calls = at >= 0 ? v.calls.map((c, i) => (i === at ? call : c)) : [...v.calls, call];
  return { ...v, calls, text: call.text };
}
