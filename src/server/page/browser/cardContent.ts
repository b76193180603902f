/**
 * What an approval card shows: the chain's request and which chain it is, the chain's handoffs so
 * far, the handoff's message or the tool call's arguments to edit, and why the viewer may not decide.
 */
import { ago, count, h, runLink, type Child } from './dom';
import { session } from './session';
import type { Approval, Asked } from './types';

/** Whether the signed-in person's roles decide approvals at all. */
function decidesAny(): boolean {
  return !!session.me && session.me.roles.some((r) => r === 'approver' || r === 'admin');
}

/** Whether the signed-in person may decide an approval with these approvers (when the service does not say). */
export function mayDecide(approvers: string[] | undefined): boolean {
  if (!decidesAny()) return false;
  return !approvers || approvers.indexOf(session.me!.name) >= 0;
}

/** Why the viewer cannot decide an approval: their role, or the approvers it names. */
export function whyNot(a: Approval): string {
  const me = session.me;
  if (!me) return 'Sign in to decide.';
  if (!decidesAny())
    return `You cannot decide approvals: you are signed in as ${me.name} with the role${me.roles.length === 1 ? ' ' : 's '}${me.roles.join(', ') || 'none'}, and deciding needs approver or admin.`;
  if (a.approvers && a.approvers.indexOf(me.name) < 0)
    return `Only ${a.approvers.join(', ')}${a.approvers.length === 1 ? ' decides' : ' decide'} this; you are signed in as ${me.name}.`;
  return 'You may not decide this.';
}

/** What the chain was asked, and which chain it is: its id (a link to its page), when and by whom it started. */
export function requestBlock(a: Approval, brief: boolean): Child[] {
  const r = a.request;
  const who: Child[] = [];
  if (r && r.startedAt) who.push(h('span', { 'data-at': r.startedAt, class: 'age', text: ago(r.startedAt) }));
  if (r && r.startedBy) who.push(`by ${r.startedBy}`);
  else if (r && r.client) who.push(`by client ${r.client}`);
  const parts: Child[] = [h('span', { class: 'muted', text: 'Chain ' }), h('code', {}, [runLink(a.workflowId)])];
  if (who.length)
    parts.push(h('span', { class: 'muted', text: ' · started ' }), who[0], ...who.slice(1).map((w) => ` ${String(w)}`));
  if (r && r.parent)
    parts.push(h('span', { class: 'muted', text: ' · specialist of ' }), h('code', {}, [runLink(r.parent.workflowId)]));
  const chainLine = h('p', { class: 'which small' }, parts);
  if (!r)
    return brief
      ? [chainLine]
      : [chainLine, h('p', { class: 'request muted small', text: 'Request: not available right now.' })];
  const asked = (label: string, q: Asked) =>
    h('p', { class: 'request' }, [
      h('span', { class: 'muted', text: `${label} to ${q.agent}: ` }),
      h('q', { text: q.input + (q.truncated ? '…' : '') }),
    ]);
  // A specialist was given a task; what the customer first asked comes from the top chain.
  return [
    chainLine,
    ...(r.original ? [asked('Original request', r.original), asked('Task', r)] : [asked('Request', r)]),
  ];
}

/** The chain's handoffs so far, as a line of agents. */
export function chainLine(a: Approval, brief: boolean): HTMLParagraphElement | null {
  const chain = a.chain;
  if (!chain) return brief ? null : h('p', { class: 'chain muted', text: 'Chain so far: not available right now.' });
  if (chain.length === 0) return h('p', { class: 'chain muted', text: `No handoffs yet: ${a.from} has the chain.` });
  const hops = [chain[0]!.from].concat(chain.map((c) => c.to));
  return h('p', { class: 'chain' }, [
    h('span', { class: 'muted', text: 'Chain so far: ' }),
    h('b', { text: hops.join(' → ') }),
    h('span', { class: 'muted', text: ` (${count(chain.length, 'handoff')})` }),
  ]);
}

/** A tool call's arguments as the approver edits them: indented JSON, or the model's text when it is not JSON. */
function argumentsText(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** What a card shows of what waits: the handoff's message, or the tool call's arguments in an editable box. */
export function approvalBody(a: Approval, id: string, canDecide: boolean): Child[] {
  if (!a.tool) return [h('blockquote', { text: a.message })];
  const text = argumentsText(
    a.tool.argumentsText !== undefined
      ? a.tool.argumentsText
      : typeof a.tool.arguments === 'string'
        ? a.tool.arguments
        : JSON.stringify(a.tool.arguments),
  );
  const args = h('textarea', {
    id: `a-${id}`,
    class: 'args',
    rows: String(Math.min(12, text.split('\n').length + 1)),
    spellcheck: 'false',
    disabled: !canDecide,
  });
  args.value = text;
  args.setAttribute('data-original', args.value);
  const hidden = a.sensitive && !a.sensitive.revealed;
  return [
    h('label', { for: `a-${id}`, text: 'Arguments (JSON; edit them to run the call with yours)' }),
    args,
    hidden
      ? h('p', {
          class: 'muted small',
          text: `Sensitive arguments are hidden (${a.sensitive!.arguments === true ? 'all of them' : a.sensitive!.arguments.join(', ')}): only its approvers see them.`,
        })
      : null,
    h('p', { class: 'problem args-problem', role: 'alert', hidden: true }),
  ];
}
