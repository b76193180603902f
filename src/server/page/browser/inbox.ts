/**
 * The inbox: what waits for the signed-in person (their identity and groups), or for everyone, soonest
 * due first with what is overdue marked; filtered by team, agent, tool, age and overdue, searched and
 * paged by `GET /v1/inbox`; kept current from the service's approvals stream; decided one by one (from
 * the keyboard too) or, similar calls selected together, in a batch (./batch.ts).
 */
import { apiJson } from './api';
import { batchSelection, itemKey } from './batch';
import { approvalCard, keepTyped, type Card } from './cards';
import { ago, h } from './dom';
import { passkeyPanel } from './passkey';
import { questionsMark } from './requestInfo';
import { keyPanel } from './signing';
import { liveBadge, openStream } from './stream';
import { AGES, field, queryOf, readFilters, select, SIZES, TEXTS } from './inboxFilters';
import type { Approval, InboxItem, InboxPage } from './types';

/** When it is due, as people read it: overdue (and since when), or due in how long. */
function dueLine(i: InboxItem): HTMLElement | null {
  if (!i.dueAt) return null;
  if (i.overdue)
    return h('span', { class: 'due overdue' }, [
      h('strong', { class: 'badge overdue', text: 'Overdue' }),
      ', was due ',
      h('span', { class: 'age', 'data-at': i.dueAt, text: ago(i.dueAt) }),
    ]);
  const s = Math.max(0, Math.round((Date.parse(i.dueAt) - Date.now()) / 1000));
  return h('span', {
    class: 'due',
    text: `due in ${s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`}`,
  });
}

export function showInbox(main: HTMLElement): void {
  document.title = 'Approvals · baton';
  let filters = readFilters();
  /** The page tokens of the pages before and this one: the first page has none. */
  let tokens: (string | undefined)[] = [undefined];
  /** Decided from this page: they leave the list at once, before visibility says so. */
  const gone = new Set<string>();
  /** What the approvals stream adds to each waiting approval: the chain's request and its handoffs so far. */
  let context = new Map<string, Approval>();
  let heard: () => void = () => undefined;
  // The first page waits (a little) for the stream's first word, so its cards show their chains' requests at once.
  const firstHeard = Promise.race([
    new Promise<void>((r) => (heard = r)),
    new Promise<void>((r) => setTimeout(r, 3000)),
  ]);
  const live = liveBadge();
  const list = h('ul', { class: 'cards', id: 'approvals', 'aria-label': 'Waiting approvals' });
  const empty = h('p', { class: 'muted', hidden: true });
  const total = h('span', { class: 'muted' });
  const status = h('p', { class: 'muted small page-status', role: 'status' });
  const problem = h('p', { class: 'problem', role: 'alert', hidden: true });
  const selection = batchSelection((keys) => {
    keys.forEach((k) => gone.add(k));
    void load();
  });

  const inputs = {
    for: select(
      'f-for',
      [
        ['me', 'Waiting for me'],
        ['all', "Everyone's"],
      ],
      filters.for,
    ),
    team: h('input', { type: 'text', id: 'f-team', autocomplete: 'off' }),
    agent: h('input', { type: 'text', id: 'f-agent', autocomplete: 'off' }),
    tool: h('input', { type: 'text', id: 'f-tool', autocomplete: 'off' }),
    minAge: select('f-age', AGES, filters.minAge),
    overdue: h('input', { type: 'checkbox', id: 'f-overdue' }),
    q: h('input', { type: 'search', id: 'f-q', autocomplete: 'off' }),
    limit: select(
      'f-limit',
      (SIZES.includes(filters.limit) ? SIZES : [filters.limit, ...SIZES]).map((s) => [s, s]),
      filters.limit,
    ),
  };
  for (const k of TEXTS) inputs[k].value = filters[k];
  inputs.overdue.checked = filters.overdue;
  const apply = (e?: Event) => {
    e?.preventDefault();
    filters = {
      for: inputs.for.value,
      team: inputs.team.value,
      agent: inputs.agent.value,
      tool: inputs.tool.value,
      minAge: inputs.minAge.value,
      overdue: inputs.overdue.checked,
      q: inputs.q.value,
      limit: inputs.limit.value,
    };
    history.replaceState(null, '', `${location.pathname}?${queryOf(filters).toString()}`);
    tokens = [undefined];
    void load();
  };
  [inputs.for, inputs.minAge, inputs.overdue, inputs.limit].forEach((el) => el.addEventListener('change', apply));
  const form = h('form', { class: 'filters', role: 'search', 'aria-label': 'Filter the inbox', onsubmit: apply }, [
    field('f-for', 'Whose', inputs.for),
    field('f-team', 'Team', inputs.team),
    field('f-agent', 'Agent', inputs.agent),
    field('f-tool', 'Tool', inputs.tool),
    field('f-age', 'Waiting', inputs.minAge),
    field('f-q', 'Search', inputs.q),
    field('f-limit', 'Per page', inputs.limit),
    h('div', { class: 'field check' }, [inputs.overdue, h('label', { for: 'f-overdue', text: 'Overdue only' })]),
    h('div', { class: 'field buttons' }, [h('button', { type: 'submit', text: 'Apply' })]),
  ]);
  const prev = h('button', { type: 'button', text: 'Previous page', onclick: () => turn(-1) });
  const next = h('button', { type: 'button', text: 'Next page', onclick: () => turn(1) });
  let nextToken: string | undefined;
  const turn = (step: number) => {
    if (step > 0 && nextToken) tokens.push(nextToken);
    else if (step < 0 && tokens.length > 1) tokens.pop();
    else return;
    void load();
  };
  const key = (text: string) => h('kbd', { text });
  main.replaceChildren(
    h('h1', {}, ['Waiting for approval ', total]),
    h('p', { class: 'facts' }, [
      live.el,
      h('span', { class: 'keys' }, [
        'Keys: ',
        key('j'),
        ' / ',
        key('k'),
        ' move, ',
        key('x'),
        ' select, ',
        key('a'),
        ' approve, ',
        key('r'),
        ' reject',
      ]),
    ]),
    keyPanel(),
    passkeyPanel(),
    form,
    problem,
    status,
    selection.results,
    selection.bar,
    list,
    empty,
    h('nav', { class: 'pager actions', 'aria-label': 'Pages of the inbox' }, [prev, next]),
  );

  function card(i: InboxItem, n: number): Card {
    const id = `pick-${n}-${i.handoffId.replace(/[^a-zA-Z0-9_-]/g, '')}`;
    const box = selection.checkbox(i, id);
    const head = h('div', { class: 'pick' }, [
      h('span', { class: 'pick-one' }, [
        box,
        h('label', { for: id }, [
          'Select',
          h('span', {
            class: 'sr',
            text: ` ${i.tool ? `tool call ${i.tool.name}` : `handoff ${i.from} to ${i.to}`} in chain ${i.workflowId}`,
          }),
        ]),
      ]),
      dueLine(i),
      i.team ? h('span', { class: 'muted small', text: `team ${i.team}` }) : null,
      i.canDecide === false
        ? null
        : h('button', {
            type: 'button',
            class: 'link similar',
            text: 'Select similar',
            onclick: () => selection.similar(i),
          }),
    ]);
    const c = approvalCard(
      i,
      () => {
        gone.add(itemKey(i));
        void load();
      },
      { head: [head], brief: true, onChanged: () => void load() },
    );
    c.setAttribute('data-overdue', String(i.overdue));
    c.setAttribute('data-context', contextMark(i));
    c.toggle = () => {
      if (!box.disabled) box.click();
    };
    return c;
  }

  let busy = false;
  let again = false;
  async function load(): Promise<void> {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      const q = queryOf(filters);
      const token = tokens[tokens.length - 1];
      if (token) q.set('pageToken', token);
      const page = await apiJson<InboxPage>(`v1/inbox?${q.toString()}`);
      await firstHeard;
      problem.hidden = true;
      show(page);
    } catch (e) {
      if ((e as Error).message !== 'unauthorized') {
        problem.textContent = `Could not read the inbox: ${(e as Error).message}`;
        problem.hidden = false;
      }
    } finally {
      busy = false;
      if (again) {
        again = false;
        void load();
      }
    }
  }

  function show(page: InboxPage): void {
    const items = page.approvals
      .filter((i) => !gone.has(itemKey(i)))
      .map((i) => {
        const seen = context.get(itemKey(i));
        return seen
          ? { ...i, ...(seen.request ? { request: seen.request } : {}), ...(seen.chain ? { chain: seen.chain } : {}) }
          : i;
      });
    const had = new Map<string, Card>();
    for (const c of Array.from(list.children) as Card[]) had.set(c.getAttribute('data-key')!, c);
    const cards = items.map((i, n) => {
      const old = had.get(itemKey(i));
      // A card stays as it is (what is typed in it, its focus) while its call, its overdue mark, its questions and what is known of its chain do.
      if (
        old &&
        old.getAttribute('data-overdue') === String(i.overdue) &&
        old.getAttribute('data-context') === contextMark(i) &&
        old.getAttribute('data-questions') === questionsMark(i)
      ) {
        had.delete(itemKey(i));
        return old;
      }
      return old ? keepTyped(old, card(i, n)) : card(i, n);
    });
    had.forEach((c) => c.remove());
    cards.forEach((c, n) => {
      if (list.children[n] !== c) list.insertBefore(c, list.children[n] ?? null);
    });
    selection.listed(items);
    const shown = Math.max(0, page.total - (page.approvals.length - items.length));
    const first = (tokens.length - 1) * Number(filters.limit);
    total.textContent = `(${shown})`;
    status.textContent = items.length
      ? `Page ${tokens.length}: ${first + 1}–${first + items.length} of ${shown}, soonest due first`
      : '';
    const filtered = TEXTS.some((k) => filters[k].trim()) || filters.minAge || filters.overdue;
    empty.textContent = filtered ? 'Nothing waiting matches these filters.' : 'Nothing waits for approval.';
    empty.hidden = items.length > 0;
    nextToken = page.nextPageToken;
    prev.disabled = tokens.length <= 1;
    next.disabled = !nextToken;
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  void load();
  // The stream says when what waits changed; the inbox then reads its page again.
  openStream(
    'v1/approvals/events',
    (kind, body) => {
      if (kind !== 'approvals') return false;
      context = new Map((body as { approvals: Approval[] }).approvals.map((a) => [itemKey(a), a]));
      heard();
      clearTimeout(timer);
      timer = setTimeout(() => void load(), 300);
      return false;
    },
    live.set,
  );
}

/** What is known of a card's chain (its request, its handoffs so far): a card is drawn again when more of it is. */
function contextMark(i: InboxItem): string {
  return `${i.request ? 'r' : ''}${i.chain ? 'c' : ''}`;
}
