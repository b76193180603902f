/** A run's page: its status, request, flow, what waits for approval, the answer forming, the answer, the timeline. */
import { apiJson, api } from './api';
import { approvalCard, keepTyped } from './cards';
import { costText, count, enc, h, messageOf, runLink, type Child } from './dom';
import { datasetActions } from './reports';
import { BASE, onLeave } from './session';
import { formingAnswer, liveBadge, openStream, type TextChange } from './stream';
import { questionsMark } from './requestInfo';
import type { Approval, Asked, RunView } from './types';

const FINAL: Record<string, boolean> = { completed: true, failed: true, ended: true };

/** A timeline text with each specialist's chain, "(chain <id>)", as a link to its page. */
function linkedChains(text: string): Child[] {
  const out: Child[] = [];
  const re = /\(chain ([^)\s]+)\)/g;
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    out.push(text.slice(last, m.index), '(chain ', runLink(m[1]!), ')');
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

/** Scale the flow down to the width of the screen, to at most 60% of its size; past that it scrolls, and says so. */
function fitFlow(flow: HTMLElement, hint: HTMLElement): void {
  const svg = flow.querySelector('svg');
  if (!svg) return;
  if (!svg.getAttribute('data-width')) {
    svg.setAttribute('data-width', svg.getAttribute('width') ?? '');
    svg.setAttribute('data-height', svg.getAttribute('height') ?? '');
  }
  const w = Number(svg.getAttribute('data-width'));
  const ht = Number(svg.getAttribute('data-height'));
  const room = flow.clientWidth - 16;
  const scale = room > 0 ? Math.min(1, Math.max(0.6, room / w)) : 1;
  svg.setAttribute('width', String(Math.floor(w * scale)));
  svg.setAttribute('height', String(Math.floor(ht * scale)));
  hint.hidden = Math.floor(w * scale) <= room;
}

/** A line of the audit's timeline as a row: its time, its actor, and what happened with the chains it names linked. */
function timelineRow(line: string): HTMLElement[] {
  const m = /^(\d\d:\d\d:\d\d\.\d{3}) {2}(\S+)\s+(.*)$/.exec(line);
  return m
    ? [
        h('li', {}, [
          h('time', { text: m[1] }),
          h('span', { class: 'actor', text: m[2] }),
          h('span', { class: 'what' }, linkedChains(m[3]!)),
        ]),
      ]
    : [];
}

/** The card `list` shows for `a`: kept while what it shows of it is current, else rebuilt with what was typed in it; what is typed stays as the chain's events arrive. */
function currentCard(list: HTMLElement, a: Approval, refresh: () => unknown): HTMLElement {
  const old = Array.from(list.children).find((c) => c.getAttribute('data-key') === `${a.workflowId}/${a.handoffId}`) as
    HTMLElement | undefined;
  if (old && old.getAttribute('data-questions') === questionsMark(a)) return old;
  const fresh = approvalCard(a, refresh, { onChanged: refresh });
  return old ? keepTyped(old, fresh) : fresh;
}

export async function showRun(main: HTMLElement, id: string): Promise<void> {
  document.title = `${id} · baton`;
  const live = liveBadge();
  const status = h('span', { class: 'badge', text: '…' });
  const facts = h('p', { class: 'facts' });
  const flow = h('div', { class: 'flow', role: 'figure', 'aria-label': 'Handoff flow' });
  const flowHint = h('p', {
    class: 'muted small',
    text: 'The flow is wider than the screen: scroll it sideways.',
    hidden: true,
  });
  const request = h('p', { class: 'request' });
  const waiting = h('ul', { class: 'cards' });
  const waitingHead = h('h2', { text: 'Waiting for approval', hidden: true });
  const outcome = h('div');
  const forming = formingAnswer();
  const timeline = h('ol', { class: 'timeline' });
  main.replaceChildren(
    h('p', { class: 'small' }, [h('a', { href: BASE, text: '← Approvals' })]),
    h('h1', {}, ['Chain ', status]),
    h('p', { class: 'muted small chain-id', text: id }),
    request,
    facts,
    h('p', {}, [live.el]),
    h('h2', { text: 'Flow' }),
    flow,
    flowHint,
    waitingHead,
    waiting,
    forming.el,
    outcome,
    h('h2', { text: 'Timeline' }),
    timeline,
    h('h2', { text: 'Evaluation' }),
    datasetActions(id),
  );
  const drawn = { svg: '', lines: '' };
  let busy = false;
  let again = false;
  async function refresh(): Promise<void> {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      const base = `v1/runs/${enc(id)}`;
      const [run, svg, lines] = await Promise.all([
        apiJson<RunView>(base),
        api(`${base}/audit?format=svg`).then((r) => r.text()),
        api(`${base}/audit?format=timeline`).then((r) => r.text()),
      ]);
      status.textContent = run.status.replace(/_/g, ' ');
      status.className = `badge ${run.status}`;
      const shown = [
        run.currentAgent ? `agent: ${run.currentAgent}` : null,
        run.team ? `team: ${run.team}` : null,
        count(run.chain.length, 'handoff'),
        count(run.usage.modelCalls, 'model call'),
        count(run.usage.toolCalls, 'tool call'),
        count(run.usage.totalTokens, 'token'),
        costText(run.usage.cost),
      ];
      facts.replaceChildren(...shown.filter((t): t is string => !!t).map((t) => h('span', { text: t })));
      // The drawing's own <style> is for the SVG on its own; here the page's stylesheet styles it.
      // Redrawn only when it changed: a click on a specialist's link mid-redraw would land on nothing.
      if (svg !== drawn.svg) {
        drawn.svg = svg;
        flow.innerHTML = svg.replace(/<style>[\s\S]*?<\/style>/, '');
        flow
          .querySelectorAll('[data-workflow-id]')
          .forEach((a) => a.setAttribute('href', `${BASE}runs/${enc(a.getAttribute('data-workflow-id')!)}`));
        fitFlow(flow, flowHint);
      }
      const input = run.input ? String(run.input.input) : '';
      const asked: Asked | undefined = run.input
        ? {
            agent: run.input.agent,
            input: input.slice(0, 400),
            truncated: input.length > 400,
            ...(run.startedAt ? { startedAt: run.startedAt } : {}),
            ...(run.startedBy ? { startedBy: run.startedBy } : {}),
            ...(run.input.parent ? { parent: run.input.parent } : {}),
          }
        : undefined;
      request.replaceChildren(
        ...(asked
          ? [
              h('span', {
                class: 'muted',
                text: `Request to ${asked.agent}${asked.startedBy ? ` from ${asked.startedBy}` : ''}: `,
              }),
              h('q', { text: asked.input + (asked.truncated ? '…' : '') }),
              ...(asked.parent
                ? [h('span', { class: 'muted', text: ' · specialist of ' }), runLink(asked.parent.workflowId)]
                : []),
            ]
          : []),
      );
      const pending = run.pendingApprovals.map((p) => ({
        workflowId: id,
        chain: run.chain,
        ...(asked ? { request: asked } : {}),
        ...p,
      }));
      waiting.replaceChildren(...pending.map((p) => currentCard(waiting, p, refresh)));
      waitingHead.hidden = pending.length === 0;
      if (run.output !== undefined || run.error) forming.done();
      if (run.error)
        outcome.replaceChildren(
          h('h2', { text: 'Failed' }),
          h('p', { class: 'problem', text: (run.error.type ? `${run.error.type}: ` : '') + run.error.message }),
        );
      else if (run.output !== undefined)
        outcome.replaceChildren(
          h('h2', { text: `Answer${run.finalAgent ? ` from ${run.finalAgent}` : ''}` }),
          h('pre', {
            class: 'output',
            text: typeof run.output === 'string' ? run.output : JSON.stringify(run.output, null, 2),
          }),
        );
      else outcome.replaceChildren();
      if (lines !== drawn.lines) {
        drawn.lines = lines;
        timeline.replaceChildren(...lines.split('\n').flatMap(timelineRow));
      }
    } catch (e) {
      if (messageOf(e) !== 'unauthorized')
        outcome.replaceChildren(h('p', { class: 'problem', text: `Could not load the chain: ${messageOf(e)}` }));
    } finally {
      busy = false;
      if (again) {
        again = false;
        void refresh();
      }
    }
  }
  await refresh();
  const onResize = () => fitFlow(flow, flowHint);
  window.addEventListener('resize', onResize);
  onLeave(() => window.removeEventListener('resize', onResize));
  let timer: ReturnType<typeof setTimeout> | undefined;
  openStream(
    `v1/runs/${enc(id)}/stream`,
    (kind, body) => {
      // The answer forming shows at once; the rest of the page follows the chain's events.
      if (kind === 'text' || kind === 'text_reset') {
        forming.apply(body as TextChange);
        return false;
      }
      if (kind === 'text_unavailable') {
        forming.unavailable();
        return false;
      }
      clearTimeout(timer);
      timer = setTimeout(() => void refresh(), FINAL[kind] ? 0 : 250);
      return !!FINAL[kind];
    },
    live.set,
  );
}
