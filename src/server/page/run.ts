/**
 * Helpers of the run page (plain browser JavaScript, part of the page script): links to
 * specialists' chains in the timeline, and the flow fitted to the screen.
 */
export const RUN_SCRIPT = String.raw`/** A timeline text with each specialist's chain, "(chain <id>)", as a link to its page. */
function linkedChains(text) {
  var out = [];
  var re = /\(chain ([^)\s]+)\)/g;
  var last = 0;
  var m;
  while ((m = re.exec(text))) {
    out.push(text.slice(last, m.index), '(chain ', runLink(m[1]), ')');
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

/** Scale the flow down to the width of the screen, to at most 60% of its size; past that it scrolls, and says so. */
function fitFlow(flow, hint) {
  var svg = flow.querySelector('svg');
  if (!svg) return;
  if (!svg.getAttribute('data-width')) { svg.setAttribute('data-width', svg.getAttribute('width')); svg.setAttribute('data-height', svg.getAttribute('height')); }
  var w = Number(svg.getAttribute('data-width'));
  var ht = Number(svg.getAttribute('data-height'));
  var room = flow.clientWidth - 16;
  var scale = room > 0 ? Math.min(1, Math.max(0.6, room / w)) : 1;
  svg.setAttribute('width', String(Math.floor(w * scale)));
  svg.setAttribute('height', String(Math.floor(ht * scale)));
  hint.hidden = Math.floor(w * scale) <= room;
}
`;
