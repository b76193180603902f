/**
 * The page's event-stream reader (plain browser JavaScript, part of the page script): Server-Sent
 * Events read with fetch, so the bearer token goes in a header; reconnects with Last-Event-ID and
 * backs off while the service is away; and the live indicator beside it.
 */
export const STREAM_SCRIPT = String.raw`function openStream(path, onEvent, onLive) {
  var ctrl = new AbortController();
  var lastId = null;
  var closed = false;
  (async function () {
    var delay = 1000;
    while (!closed) {
      try {
        var headers = { accept: 'text/event-stream', authorization: 'Bearer ' + token() };
        if (lastId) headers['last-event-id'] = lastId;
        var res = await fetch(BASE + path, { headers: headers, signal: ctrl.signal });
        if (res.status === 401) { signOut('The service did not accept your token. Enter it again.'); return; }
        if (!res.ok || !res.body) throw new Error('stream answered ' + res.status);
        onLive(true);
        delay = 1000;
        var reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        var buffer = '';
        for (;;) {
          var chunk = await reader.read();
          if (chunk.done) break;
          buffer += chunk.value.replace(/\r\n?/g, '\n');
          var end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            var block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            var ev = { event: 'message', data: [], id: null };
            block.split('\n').forEach(function (line) {
              if (!line || line[0] === ':') return;
              var colon = line.indexOf(':');
              var field = colon < 0 ? line : line.slice(0, colon);
              var value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
              if (field === 'data') ev.data.push(value); else if (field === 'event') ev.event = value; else if (field === 'id') ev.id = value;
            });
            if (ev.id) lastId = ev.id;
            if (ev.data.length && onEvent(ev.event, JSON.parse(ev.data.join('\n')))) { closed = true; onLive('done'); ctrl.abort(); return; }
          }
        }
      } catch (e) {
        if (closed) return;
      }
      onLive(false);
      if (closed) return;
      await sleep(delay);
      delay = Math.min(delay * 2, 15000);
    }
  })();
  var stop = function () { closed = true; ctrl.abort(); };
  stops.push(stop);
  return stop;
}

function liveBadge() {
  var el = h('span', { class: 'live', text: 'connecting' });
  return { el: el, set: function (state) { el.className = state === true ? 'live on' : 'live'; el.textContent = state === true ? 'live' : state === 'done' ? 'chain ended' : 'reconnecting'; } };
}

// The text of the model call being written, as the run's stream gives it (text pieces at their
// offsets, text_reset to drop a call's text), until the recorded answer replaces it.
function formingAnswer() {
  var who = h('span', { class: 'muted' });
  var text = h('pre', { class: 'output-forming', 'aria-live': 'polite' });
  var el = h('div', { class: 'forming-answer', hidden: true }, [h('h2', {}, ['Answer forming ', who]), text]);
  var calls = {};
  return {
    el: el,
    apply: function (c) {
      var key = c.workflowId + ' ' + c.call;
      var have = calls[key] || '';
      calls[key] = c.kind === 'text_reset' ? '' : have.slice(0, c.offset) + c.text;
      if (c.kind === 'text' && c.final) return;
      who.textContent = c.agent;
      text.textContent = calls[key];
      el.hidden = calls[key] === '';
    },
    done: function () { el.hidden = true; },
  };
}
`;