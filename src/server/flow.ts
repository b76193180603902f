/**
 * The handoff flow of a chain drawn as SVG for the run page (no Mermaid runtime in the browser):
 * agents in a row in the order they joined, executed handoffs as solid numbered arcs, handoffs
 * asked for but not executed (waiting, rejected, refused) as dashed arcs labelled with why, and
 * below them the specialists it delegated to, each a box linking to its own chain.
 */
import { HandoffRequestOutcome, type AuditChain, type AuditEvent } from '../audit/chain';

interface Edge {
  from: string;
  to: string;
  label: string;
  solid: boolean;
}

const H = 34;
const GAP = 56;
const CHAR = 7.4;
const ROW_Y = 0;

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const widthOf = (label: string) => Math.max(64, Math.round(label.length * CHAR + 28));

/** Options of {@link flowSvg}. */
export interface FlowOptions {
  /**
   * The link to a specialist's chain, by its workflow id; relative links resolve against where the
   * SVG is served. @default the run page, as seen from `/v1/runs/{id}/audit`
   */
  href?: (workflowId: string) => string;
}

/** An SVG of the chain's handoffs and delegations, from its audit. */
export function flowSvg(chain: AuditChain, options: FlowOptions = {}): string {
  const edges = edgesOf(chain);
  const start = chain.input?.agent ?? chain.handoffs[0]?.from;
  const names: string[] = [];
  const add = (n: string | undefined) => n && !names.includes(n) && names.push(n);
  add(start);
  for (const e of edges) {
    add(e.from);
    add(e.to);
  }
  const end = chain.result ? 'answer' : chain.failure ? (chain.failure.type ?? 'failed') : undefined;
  const nodes = [
    { id: '\u0000input', label: 'input', kind: 'terminal' },
    ...names.map((n) => ({ id: n, label: n, kind: 'agent' })),
    ...(end ? [{ id: '\u0000end', label: end, kind: chain.result ? 'terminal' : 'failed' }] : []),
  ];
  let x = 10;
  const pos = new Map<string, { x: number; w: number }>();
  for (const n of nodes) {
    const w = widthOf(n.label);
    pos.set(n.id, { x, w });
    x += w + GAP;
  }
  const center = (id: string) => pos.get(id)!.x + pos.get(id)!.w / 2;
  const links: Edge[] = [];
  if (start) links.push({ from: '\u0000input', to: start, label: '', solid: true });
  links.push(...edges);
  const last = chain.result?.finalAgent ?? lastAgent(chain) ?? start;
  if (end && last) links.push({ from: last, to: '\u0000end', label: '', solid: true });

  const above: string[] = [];
  const below: string[] = [];
  let up = 0;
  let down = 0;
  const paths = links.map((l) => {
    const a = pos.get(l.from);
    const b = pos.get(l.to);
    if (!a || !b) return '';
    const dash = l.solid ? '' : ' stroke-dasharray="5 4"';
    if (l.from === l.to) {
      up += 1;
      const cx = center(l.from);
      const top = ROW_Y - 14 - 16 * up;
      const d = `M ${cx - 10} ${ROW_Y} C ${cx - 30} ${top}, ${cx + 30} ${top}, ${cx + 10} ${ROW_Y}`;
      above.push(text(cx, ROW_Y + 0.75 * (top - ROW_Y) - 4, l.label));
      return `<path d="${d}" class="edge"${dash} marker-end="url(#arrow)"/>`;
    }
    const forward = a.x < b.x;
    const adjacent = Math.abs(nodes.findIndex((n) => n.id === l.from) - nodes.findIndex((n) => n.id === l.to)) === 1;
    if (forward && adjacent && l.label === '') {
      return `<path d="M ${a.x + a.w} ${ROW_Y + H / 2} L ${b.x - 2} ${ROW_Y + H / 2}" class="edge"${dash} marker-end="url(#arrow)"/>`;
    }
    const level = forward ? ++up : ++down;
    const x1 = center(l.from) + (forward ? 8 : -8);
    const x2 = center(l.to) + (forward ? -8 : 8);
    const y = forward ? ROW_Y : ROW_Y + H;
    const bend = forward ? y - 22 - 18 * level : y + 22 + 18 * level;
    const mid = (x1 + x2) / 2;
    // A cubic with both control points at `bend` peaks three quarters of the way there.
    const apex = y + 0.75 * (bend - y);
    (forward ? above : below).push(text(mid, forward ? apex - 4 : apex + 13, l.label));
    return `<path d="M ${x1} ${y} C ${x1} ${bend}, ${x2} ${bend}, ${x2} ${y + (forward ? -2 : 2)}" class="edge"${dash} marker-end="url(#arrow)"/>`;
  });
  const top = 40 + 18 * up;
  // The specialists' row sits below the arcs of handoffs that went back.
  const specialistsY = ROW_Y + H + 48 + 18 * down;
  const specialists = drawSpecialists(
    chain,
    specialistsY,
    (id) => (pos.has(id) ? center(id) : undefined),
    options.href ?? defaultHref,
  );
  // An image's children are hidden from assistive technology: a flow whose specialists are links is a group.
  const bottom = specialists.boxes.length > 0 ? specialistsY + H + 8 - (ROW_Y + H) : 40 + 18 * down;
  const width = Math.max(x - GAP + 10, specialists.right + 10, 120);
  const height = top + H + bottom;
  const boxes = nodes.map((n) => {
    const { x: nx, w } = pos.get(n.id)!;
    const rx = n.kind === 'agent' ? 6 : H / 2;
    return `<g class="node ${n.kind}"><rect x="${nx}" y="${ROW_Y}" width="${w}" height="${H}" rx="${rx}"/>${text(nx + w / 2, ROW_Y + H / 2 + 4, n.label)}</g>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 ${-top} ${width} ${height}" width="${width}" height="${height}" role="${specialists.boxes.length > 0 ? 'group' : 'img'}" aria-label="${esc(describeFlow(chain))}">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" class="head"/></marker></defs>',
    '<style>.edge{fill:none;stroke:#56606e;stroke-width:1.6}.head{fill:#56606e}.node rect{fill:#fff;stroke:#56606e;stroke-width:1.4}.node.agent rect,.node.specialist rect{fill:#eef3fb;stroke:#2f5fa7}.node.failed rect{fill:#fdecec;stroke:#b3261e}text{font:12px system-ui,sans-serif;fill:#1d232b;text-anchor:middle}text.start{text-anchor:start}</style>',
    ...paths,
    ...specialists.paths,
    ...boxes,
    ...specialists.boxes,
    ...above,
    ...below,
    ...specialists.labels,
    '</svg>',
  ].join('');
}

const defaultHref = (workflowId: string) => `../../../runs/${encodeURIComponent(workflowId)}`;

/** The flow in words, for screen readers. */
export function describeFlow(chain: AuditChain): string {
  const hops = chain.handoffs.map((h) => `${h.from} to ${h.to}`);
  const delegated = chain.events.flatMap((e) =>
    e.kind === 'delegation' ? [`${e.from ?? 'it'} delegated to ${e.to} (${e.outcome.replace(/_/g, ' ')})`] : [],
  );
  return `Chain ${chain.workflowId}: ${hops.length > 0 ? hops.join(', then ') : 'no handoffs'}${delegated.length > 0 ? `; ${delegated.join(', ')}` : ''}; ${chain.status.replace(/_/g, ' ')}`;
}

type Delegation = Extract<AuditEvent, { kind: 'delegation' }>;

/**
 * The specialists a chain delegated to, in a row at `y`: each a box under the agent that delegated
 * (named with its own handoffs when it had some), linking to its chain, with a dashed arrow from
 * that agent saying how it ended.
 */
function drawSpecialists(
  chain: AuditChain,
  y: number,
  centerOf: (agent: string) => number | undefined,
  href: (workflowId: string) => string,
) {
  const out = { paths: [] as string[], boxes: [] as string[], labels: [] as string[], right: 0 };
  let next = 10;
  for (const d of chain.events.filter((e): e is Delegation & { at: string } => e.kind === 'delegation')) {
    const child = chain.children?.find((c) => c.workflowId === d.childWorkflowId);
    const hops = child && child.handoffs.length > 0 ? ` → ${child.handoffs.map((h) => h.to).join(' → ')}` : '';
    const label = `${d.to}${hops}`;
    const w = widthOf(label);
    const from = d.from !== undefined ? centerOf(d.from) : undefined;
    const bx = Math.max(next, Math.round((from ?? next + w / 2) - w / 2));
    next = bx + w + 16;
    out.right = Math.max(out.right, bx + w);
    const cx = bx + w / 2;
    if (from !== undefined) {
      out.paths.push(
        `<path d="M ${from} ${ROW_Y + H} C ${from} ${y - 20}, ${cx} ${ROW_Y + H + 20}, ${cx} ${y - 2}" class="edge" stroke-dasharray="5 4" marker-end="url(#arrow)"/>`,
      );
      out.labels.push(
        text(
          (from + cx) / 2 + 6,
          (ROW_Y + H + y) / 2 + 4,
          `delegates · ${d.outcome === 'completed' ? 'answered' : d.outcome.replace(/_/g, ' ')}`,
          'start',
        ),
      );
    }
    const title = `${d.to}'s chain ${d.childWorkflowId}: ${d.outcome.replace(/_/g, ' ')}`;
    out.boxes.push(
      `<a class="chain-link" href="${esc(href(d.childWorkflowId))}" data-workflow-id="${esc(d.childWorkflowId)}"><title>${esc(title)}</title>` +
        `<g class="node specialist${d.outcome === 'completed' || d.outcome === 'running' ? '' : ' failed'}"><rect x="${bx}" y="${y}" width="${w}" height="${H}" rx="6"/>${text(cx, y + H / 2 + 4, label)}</g></a>`,
    );
  }
  return out;
}

function edgesOf(chain: AuditChain): Edge[] {
  const edges: Edge[] = [];
  for (const e of chain.events) {
    if (e.kind === 'handoff') {
      const how = e.approval
        ? e.approval.outcome === 'timed_out'
          ? ' · approved on timeout'
          : ` · ${e.approval.approver}`
        : '';
      edges.push({ from: e.from, to: e.to, label: `#${e.index}${how}`, solid: true });
    } else if (e.kind === 'handoff_requested' && e.outcome !== HandoffRequestOutcome.EXECUTED && e.to) {
      edges.push({ from: e.from, to: e.to, label: e.outcome.replace(/_/g, ' '), solid: false });
    }
  }
  return edges;
}

function lastAgent(chain: AuditChain): string | undefined {
  for (let i = chain.events.length - 1; i >= 0; i--) {
    const e = chain.events[i]!;
    if (e.kind === 'model_turn') return e.agent;
  }
  return undefined;
}

function text(x: number, y: number, label: string, anchor?: 'start'): string {
  return label
    ? `<text x="${Math.round(x)}" y="${Math.round(y)}"${anchor ? ` class="${anchor}"` : ''}>${esc(label)}</text>`
    : '';
}
