/**
 * The UI message stream of one answer: each time its view changes, the chunks that bring what the
 * client has to the new view. Text only grows in the protocol, so the text of a model call that is
 * replaced (a retried call that wrote something else, or text that is not what history records)
 * is closed and named in a `data-text-reset` part, and the call's text starts again in a new part;
 * a retried call that writes the same text again shows it once.
 */
import type { UiChunk } from './chunks';
import type { AnswerView, PartView, ToolView } from './view';

/** What the client has of a text part. */
interface SentText {
  chunkId: string;
  shown: string;
  open: boolean;
  generation: number;
}

/** What the client has of a tool part. */
interface SentTool {
  approval: boolean;
  end?: 'output' | 'error' | 'denied';
}

/** A client's assistant message, as much of it as the writer reads (the AI SDK's `UIMessage`). */
export interface ClientMessage {
  id?: string;
  role?: string;
  parts?: ({
    type?: string;
    id?: string;
    text?: string;
    state?: string;
    toolCallId?: string;
    data?: unknown;
    providerMetadata?: unknown;
  } & Record<string, unknown>)[];
}

/** Turns successive views of one answer into chunks. */
export class ChunkWriter {
  #started = false;
  #stepOpen = false;
  #steps = 0;
  readonly #texts = new Map<string, SentText>();
  readonly #tools = new Map<string, SentTool>();
  readonly #data = new Map<string, string>();

  /**
   * A writer that continues a message the client already holds (after it answered an approval):
   * its steps, text, tool calls and data parts count as sent.
   */
  static continuing(message: ClientMessage): ChunkWriter {
    const w = new ChunkWriter();
    w.#started = true;
    for (const p of message.parts ?? []) {
      if (p.type === 'step-start') w.#steps += 1;
      else if (p.type === 'text') {
        const part = (p.providerMetadata as { baton?: { part?: unknown } } | undefined)?.baton?.part;
        if (typeof part !== 'string') continue;
        const [id, generation] = splitChunkId(part);
        w.#texts.set(id, { chunkId: part, shown: typeof p.text === 'string' ? p.text : '', open: false, generation });
      } else if (typeof p.toolCallId === 'string' && (p.type?.startsWith('tool-') || p.type === 'dynamic-tool')) {
        const end =
          p.state === 'output-available'
            ? 'output'
            : p.state === 'output-error'
              ? 'error'
              : p.state === 'output-denied'
                ? 'denied'
                : undefined;
        w.#tools.set(p.toolCallId, {
          approval: p.state === 'approval-requested' || p.state === 'approval-responded',
          ...(end ? { end } : {}),
        });
      } else if (p.type?.startsWith('data-') && typeof p.id === 'string')
        w.#data.set(`${p.type}:${p.id}`, JSON.stringify(p.data));
    }
    return w;
  }

  /** The chunks that bring the client from what it has to `view`. */
  write(view: AnswerView): UiChunk[] {
    const out: UiChunk[] = [];
    if (!this.#started) {
      this.#started = true;
      out.push({ type: 'start', messageId: view.messageId });
    }
    let step = 0;
    for (const part of view.parts) {
      if (part.kind === 'step') {
        step += 1;
        if (step <= this.#steps) continue;
        if (this.#stepOpen) out.push({ type: 'finish-step' });
        out.push({ type: 'start-step' });
        this.#steps = step;
        this.#stepOpen = true;
      } else out.push(...this.part(part));
    }
    return out;
  }

  /** The chunks that end the message: the step in progress, then `finish`. */
  finish(reason: 'stop' | 'tool-calls' | 'error'): UiChunk[] {
    const out: UiChunk[] = [];
    for (const t of this.#texts.values()) if (t.open) out.push({ type: 'text-end', id: t.chunkId });
    if (this.#stepOpen) out.push({ type: 'finish-step' });
    this.#stepOpen = false;
    out.push({ type: 'finish', finishReason: reason });
    return out;
  }

  private part(part: Exclude<PartView, { kind: 'step' }>): UiChunk[] {
    if (part.kind === 'text') return this.text(part.id, part.text, part.done);
    if (part.kind === 'tool') return this.tool(part);
    const key = `data-${part.name}:${part.id}`;
    const json = JSON.stringify(part.data);
    if (this.#data.get(key) === json) return [];
    this.#data.set(key, json);
    return [{ type: `data-${part.name}`, id: part.id, data: part.data }];
  }

  private text(id: string, text: string, done: boolean): UiChunk[] {
    const sent = this.#texts.get(id);
    if (!sent) return text === '' ? [] : this.openText(id, text, done, 1);
    const out: UiChunk[] = [];
    if (sent.open && text.startsWith(sent.shown)) {
      if (text.length > sent.shown.length)
        out.push({ type: 'text-delta', id: sent.chunkId, delta: text.slice(sent.shown.length) });
      sent.shown = text;
      if (done) {
        out.push({ type: 'text-end', id: sent.chunkId });
        sent.open = false;
      }
      return out;
    }
    // A new try writing what the client has already: nothing to show until it writes more.
    if (sent.open && !done && sent.shown.startsWith(text)) return out;
    if (!sent.open && text === sent.shown) return out;
    if (sent.open) out.push({ type: 'text-end', id: sent.chunkId });
    out.push({ type: 'data-text-reset', id: sent.chunkId, data: { part: sent.chunkId } });
    this.#texts.delete(id);
    return text === '' ? out : [...out, ...this.openText(id, text, done, sent.generation + 1)];
  }

  private openText(id: string, text: string, done: boolean, generation: number): UiChunk[] {
    const chunkId = generation === 1 ? id : `${id}~${generation}`;
    this.#texts.set(id, { chunkId, shown: text, open: !done, generation });
    return [
      { type: 'text-start', id: chunkId, providerMetadata: { baton: { part: chunkId } } },
      { type: 'text-delta', id: chunkId, delta: text },
      ...(done ? [{ type: 'text-end' as const, id: chunkId }] : []),
    ];
  }

  private tool(part: ToolView): UiChunk[] {
    const out: UiChunk[] = [];
    let sent = this.#tools.get(part.toolCallId);
    if (!sent) {
      sent = { approval: false };
      this.#tools.set(part.toolCallId, sent);
      out.push({
        type: 'tool-input-available',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
      });
    }
    if (sent.end) return out;
    if (part.state === 'approval-requested' && part.decidable && !sent.approval && part.approvalId) {
      sent.approval = true;
      out.push({ type: 'tool-approval-request', approvalId: part.approvalId, toolCallId: part.toolCallId });
    }
    if (part.state === 'output')
      out.push({ type: 'tool-output-available', toolCallId: part.toolCallId, output: part.output ?? null });
    else if (part.state === 'error')
      out.push({ type: 'tool-output-error', toolCallId: part.toolCallId, errorText: part.errorText ?? 'failed' });
    else if (part.state === 'denied') out.push({ type: 'tool-output-denied', toolCallId: part.toolCallId });
    if (part.state === 'output' || part.state === 'error' || part.state === 'denied') sent.end = part.state;
    return out;
  }
}

function splitChunkId(chunkId: string): [string, number] {
  const m = /^(.*)~(\d+)$/.exec(chunkId);
  return m ? [m[1]!, Number(m[2])] : [chunkId, 1];
}

/** Whether the answer waits for a decision the caller may make in the chat (and for nothing else). */
export function waitsForCaller(view: AnswerView): boolean {
  return (
    view.status === 'answering' &&
    view.parts.some((p) => p.kind === 'tool' && p.state === 'approval-requested' && p.decidable === true)
  );
}
