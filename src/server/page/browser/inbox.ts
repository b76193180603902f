/** The inbox: every approval that waits, kept current from the service's stream, decided from the keyboard too. */
import { approvalCard } from './cards';
import { h } from './dom';
import { keyPanel } from './signing';
import { liveBadge, openStream } from './stream';
import type { Approval } from './types';

export function showInbox(main: HTMLElement): void {
  document.title = 'Approvals · baton';
  const live = liveBadge();
  const list = h('ul', { class: 'cards', id: 'approvals' });
  const empty = h('p', { class: 'muted', text: 'Nothing waits for approval.', hidden: true });
  const total = h('span', { class: 'muted' });
  const key = (text: string) => h('kbd', { text });
  main.replaceChildren(
    h('h1', {}, ['Waiting for approval ', total]),
    h('p', { class: 'facts' }, [live.el, h('span', { class: 'keys' }, ['Keys: ', key('j'), ' / ', key('k'), ' move, ', key('a'), ' approve, ', key('r'), ' reject'])]),
    keyPanel(),
    list,
    empty,
  );
  openStream(
    'v1/approvals/events',
    (kind, body) => {
      if (kind !== 'approvals') return false;
      const approvals = (body as { approvals: Approval[] }).approvals;
      const keep: Record<string, Approval> = {};
      for (const a of approvals) keep[`${a.workflowId}/${a.handoffId}`] = a;
      for (const card of Array.from(list.children)) {
        const k = card.getAttribute('data-key')!;
        if (!keep[k]) card.remove();
        else delete keep[k];
      }
      for (const a of approvals) if (keep[`${a.workflowId}/${a.handoffId}`]) list.append(approvalCard(a));
      total.textContent = `(${list.children.length})`;
      empty.hidden = list.children.length > 0;
      return false;
    },
    live.set,
  );
}
