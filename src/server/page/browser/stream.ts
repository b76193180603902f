/**
 * The page's event-stream reader: Server-Sent Events read with fetch, so the bearer token goes in
 * a header; reconnects with Last-Event-ID and backs off while the service is away; the live
 * indicator beside it; and the answer forming as the run's stream gives it.
 */
import { h, sleep } from './dom';
import { BASE, onLeave, signOut, token } from './session';

/** The state the live indicator shows: connected, ended, or reconnecting. */
export type Live = true | false | 'done';

/**
 * Follow the stream at `path`: `onEvent` gets each event's kind and data, and returns true to stop
 * (the chain ended). Returns the function that stops it.
 */
export function openStream(
  path: string,
  onEvent: (kind: string, body: unknown) => boolean,
  onLive: (state: Live) => void,
): () => void {
  const ctrl = new AbortController();
  let lastId: string | null = null;
  let closed = false;
  void (async () => {
    let delay = 1000;
    while (!closed) {
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${token()}` };
        if (lastId) headers['last-event-id'] = lastId;
        const res = await fetch(BASE + path, { headers, signal: ctrl.signal });
        if (res.status === 401) {
          signOut('The service did not accept your token. Enter it again.');
          return;
        }
        if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
        onLive(true);
        delay = 1000;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) break;
          buffer += chunk.value.replace(/\r\n?/g, '\n');
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const ev = { event: 'message', data: [] as string[], id: null as string | null };
            for (const line of block.split('\n')) {
              if (!line || line[0] === ':') continue;
              const colon = line.indexOf(':');
              const field = colon < 0 ? line : line.slice(0, colon);
              const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
              if (field === 'data') ev.data.push(value);
              else if (field === 'event') ev.event = value;
              else if (field === 'id') ev.id = value;
            }
            if (ev.id) lastId = ev.id;
            if (ev.data.length && onEvent(ev.event, JSON.parse(ev.data.join('\n')))) {
              closed = true;
              onLive('done');
              ctrl.abort();
              return;
            }
          }
        }
      } catch {
        if (closed) return;
      }
      onLive(false);
      if (closed) return;
      await sleep(delay);
      delay = Math.min(delay * 2, 15000);
    }
  })();
  const stop = () => {
    closed = true;
    ctrl.abort();
  };
  onLeave(stop);
  return stop;
}

export function liveBadge(): { el: HTMLSpanElement; set: (state: Live) => void } {
  const el = h('span', { class: 'live', text: 'connecting' });
  return {
    el,
    set(state) {
      el.className = state === true ? 'live on' : 'live';
      el.textContent = state === true ? 'live' : state === 'done' ? 'chain ended' : 'reconnecting';
    },
  };
}

/** A `text` or `text_reset` event of the run's stream. */
export interface TextChange {
  kind: 'text' | 'text_reset';
  workflowId: string;
  call: string;
  agent: string;
  offset: number;
  text: string;
  final?: boolean;
}

/**
 * The text of the model call being written, as the run's stream gives it (text pieces at their
 * offsets, text_reset to drop a call's text), until the recorded answer replaces it; and a note
 * when the stream says the text is unavailable (the answer then comes whole, when the call ends).
 */
export function formingAnswer(): {
  el: HTMLDivElement;
  apply: (c: TextChange) => void;
  unavailable: () => void;
  done: () => void;
} {
  const who = h('span', { class: 'muted' });
  const text = h('pre', { class: 'output-forming', 'aria-live': 'polite' });
  const note = h('p', {
    class: 'muted small',
    text: 'The answer is not streaming right now: it shows when the model call ends.',
    hidden: true,
  });
  const el = h('div', { class: 'forming-answer', hidden: true }, [h('h2', {}, ['Answer forming ', who]), text]);
  const calls: Record<string, string> = {};
  return {
    el: h('div', {}, [el, note]),
    apply(c) {
      const key = `${c.workflowId} ${c.call}`;
      const have = calls[key] || '';
      calls[key] = c.kind === 'text_reset' ? '' : have.slice(0, c.offset) + c.text;
      if (c.kind === 'text' && c.final) return;
      who.textContent = c.agent;
      text.textContent = calls[key]!;
      el.hidden = calls[key] === '';
    },
    unavailable() {
      note.hidden = false;
    },
    done() {
      el.hidden = true;
      note.hidden = true;
    },
  };
}
