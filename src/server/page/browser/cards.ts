/**
 * The approval cards of the page: what waits, in which chain and for what request, who may decide
 * it (and why the viewer may not), the arguments of a tool call to edit, and the decision sent.
 */
import { post } from './api';
import { ago, count, enc, h, messageOf, runLink, say, until, type Child } from './dom';
import { BASE, session } from './session';
import { passkeySignature } from './passkey';
import { chosenReason, questionsMark, requestInfoBlock } from './requestInfo';
import { heldKey, signDecision } from './signing';
import type { Approval, Asked } from './types';

/** A card, with the decision the keyboard sends for it, and (in the inbox) its selection for a batch. */
export type Card = HTMLLIElement & { decide?: (d: Decision) => void; toggle?: () => void };

/** What the inbox adds to a card: a line above it (selection, due time), and no "not available" lines for what it does not list. */
export interface CardOptions {
  head?: Child[];
  brief?: boolean;
  /** Called when a question was asked or answered from the card (the approval still waits). */
  onChanged?: () => unknown;
}

/** How long a key's first press waits for the second that confirms it. */
const CONFIRM_MS = 4000;
type Decision = 'approve' | 'reject';

function decidesAny(): boolean {
  return !!session.me && session.me.roles.some((r) => r === 'approver' || r === 'admin');
}

function mayDecide(approvers: string[] | undefined): boolean {
  if (!decidesAny()) return false;
  return !approvers || approvers.indexOf(session.me!.name) >= 0;
}

/** Why the viewer cannot decide an approval: their role, or the approvers it names. */
function whyNot(a: Approval): string {
  const me = session.me;
  if (!me) return 'Sign in to decide.';
  if (!decidesAny())
    return `You cannot decide approvals: you are signed in as ${me.name} with the role${me.roles.length === 1 ? ' ' : 's '}${me.roles.join(', ') || 'none'}, and deciding needs approver or admin.`;
  if (a.approvers && a.approvers.indexOf(me.name) < 0)
    return `Only ${a.approvers.join(', ')}${a.approvers.length === 1 ? ' decides' : ' decide'} this; you are signed in as ${me.name}.`;
  return 'You may not decide this.';
}

/** What the chain was asked, and which chain it is: its id (a link to its page), when and by whom it started. */
function requestBlock(a: Approval, brief: boolean): Child[] {
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

function chainLine(a: Approval, brief: boolean): HTMLParagraphElement | null {
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
function approvalBody(a: Approval, id: string, canDecide: boolean): Child[] {
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

export function approvalCard(a: Approval, onDecided?: () => unknown, options: CardOptions = {}): Card {
  const canDecide = a.canDecide !== undefined ? a.canDecide : mayDecide(a.approvers);
  const id = `c-${a.handoffId.replace(/[^a-zA-Z0-9_-]/g, '')}`;
  const comment = h('textarea', {
    id,
    class: 'comment',
    rows: '2',
    placeholder: 'Why (optional; a rejection tells the agent)',
    disabled: !canDecide,
  });
  const age = h('span', { class: 'age', 'data-at': a.requestedAt, text: ago(a.requestedAt) });
  const target = a.tool ? `tool ${a.tool.name}` : a.to;
  const label = `${a.tool ? `Tool call ${a.tool.name} by ${a.from}` : `Handoff ${a.from} to ${a.to}`} in chain ${a.workflowId}${a.request ? ` (request: ${a.request.input.slice(0, 80)})` : ''}`;
  const card: Card = h(
    'li',
    {
      class: `card${a.tool ? ' tool' : ''}`,
      tabindex: '0',
      'data-key': `${a.workflowId}/${a.handoffId}`,
      'data-questions': questionsMark(a),
      'aria-label': `${label}, asked ${ago(a.requestedAt)}`,
    },
    [
      ...(options.head ?? []),
      h('div', { class: 'route' }, [a.from, h('span', { class: 'arrow', 'aria-hidden': 'true', text: '→' }), target]),
      ...requestBlock(a, !!options.brief),
      h('div', { class: 'meta' }, [
        h('span', {}, ['asked ', age]),
        a.expiresAt ? h('span', { text: `${until(a.expiresAt)} (then ${a.onTimeout})` }) : null,
        h('span', { text: a.approvers ? `approvers: ${a.approvers.join(', ')}` : 'anyone may decide' }),
        a.requireSignature ? h('span', { class: 'signed-only', text: 'needs a signed decision' }) : null,
      ]),
      ...approvalBody(a, id, canDecide),
      chainLine(a, !!options.brief),
      h('label', { for: id, text: 'Comment' }),
      comment,
      h('p', { class: 'problem decide-problem', role: 'alert', hidden: true }),
      h('div', { class: 'actions' }, [
        h('button', {
          class: 'approve',
          type: 'button',
          disabled: !canDecide,
          onclick: () => decide(a, 'approve', card, onDecided),
          text: 'Approve',
        }),
        h('button', {
          class: 'reject',
          type: 'button',
          disabled: !canDecide,
          onclick: () => decide(a, 'reject', card, onDecided),
          text: 'Reject',
        }),
        canDecide ? null : h('span', { class: 'muted small why-not', text: whyNot(a) }),
        h('span', { class: 'confirm small', role: 'status', 'aria-live': 'polite' }),
        h('a', { class: 'small', href: `${BASE}runs/${enc(a.workflowId)}`, text: 'Open chain' }),
        a.rootWorkflowId && a.rootWorkflowId !== a.workflowId
          ? h('a', { class: 'small', href: `${BASE}runs/${enc(a.rootWorkflowId)}`, text: 'Open top chain' })
          : null,
      ]),
      // After the buttons, so the comment's next stop is Approve.
      ...requestInfoBlock(a, id, canDecide, options.onChanged),
    ],
  );
  // From the keyboard, a decision takes the same key twice: a stray key press decides nothing.
  let armed: { decision: Decision; timer: ReturnType<typeof setTimeout> } | undefined;
  const confirm = card.querySelector<HTMLElement>('.confirm')!;
  card.decide = (d) => {
    if (!canDecide) return;
    if (armed && armed.decision === d) {
      clearTimeout(armed.timer);
      armed = undefined;
      confirm.textContent = '';
      void decide(a, d, card, onDecided);
      return;
    }
    if (armed) clearTimeout(armed.timer);
    const timer = setTimeout(() => {
      armed = undefined;
      confirm.textContent = '';
    }, CONFIRM_MS);
    armed = { decision: d, timer };
    confirm.textContent = `Press ${d === 'approve' ? 'a' : 'r'} again to ${d}.`;
  };
  return card;
}

/** The fields of a card a person types in, by the selector that finds each in a card of the same approval. */
const TYPED = ['textarea.comment', 'textarea.args', 'select.reason-code', 'input.ask-text', 'input.answer-text'];

/**
 * `fresh`, the card rebuilt for an approval `old` showed (a question asked or answered elsewhere,
 * its overdue mark, its context), with what was typed in `old` and its focus: a person's comment,
 * chosen reason or edited arguments survive what others do meanwhile. Edited arguments carry over
 * only while the call is the same one.
 */
export function keepTyped<T extends HTMLElement>(old: HTMLElement, fresh: T): T {
  const focused = old.contains(document.activeElement) ? document.activeElement : null;
  let focus: HTMLElement | null = null;
  for (const selector of TYPED) {
    const was = old.querySelector<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(selector);
    const now = fresh.querySelector<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(selector);
    if (!was || !now || now.disabled) continue;
    if (selector === 'textarea.args' && was.getAttribute('data-original') !== now.getAttribute('data-original'))
      continue;
    if (now instanceof HTMLSelectElement && !Array.from(now.options).some((o) => o.value === was.value)) continue;
    now.value = was.value;
    if (focused === was) focus = now;
  }
  if (focused === old) focus = fresh;
  if (focus) queueMicrotask(() => focus!.focus());
  return fresh;
}

/**
 * The arguments to approve a tool call with: undefined when the box is as it was (the model's
 * arguments run), the edited object, or an Error saying what is wrong with the text.
 */
function editedArguments(card: Card): object | Error | undefined {
  const box = card.querySelector<HTMLTextAreaElement>('textarea.args');
  if (!box || box.value.trim() === (box.getAttribute('data-original') ?? '').trim()) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(box.value);
  } catch (e) {
    return new Error(`The arguments are not valid JSON: ${messageOf(e)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return new Error('The arguments must be a JSON object, like {"orderId": "A1"}.');
  return value;
}

async function decide(a: Approval, decision: Decision, card: Card, onDecided?: () => unknown): Promise<void> {
  const text = card.querySelector<HTMLTextAreaElement>('textarea.comment')!.value.trim();
  const problem = card.querySelector<HTMLElement>('.args-problem');
  const refused = card.querySelector<HTMLElement>('.decide-problem')!;
  const edited = decision === 'approve' ? editedArguments(card) : undefined;
  if (problem) problem.hidden = true;
  refused.hidden = true;
  // A rejection carries one note: a chosen reason code sends no comment, and nothing typed is dropped unsaid.
  if (decision === 'reject' && text && chosenReason(card)) {
    refused.textContent =
      'A rejection with a reason code carries no comment: clear the comment to reject with the code.';
    refused.hidden = false;
    card.querySelector<HTMLTextAreaElement>('textarea.comment')!.focus();
    return;
  }
  if (edited instanceof Error) {
    problem!.textContent = edited.message;
    problem!.hidden = false;
    card.querySelector<HTMLTextAreaElement>('textarea.args')!.focus();
    return;
  }
  const buttons = card.querySelectorAll('button');
  buttons.forEach((b) => (b.disabled = true));
  try {
    const body: Record<string, unknown> = { decision };
    if (text) body.comment = text;
    // A typed reason goes as the rejection's reason, and is what a signature names.
    const code = decision === 'reject' ? chosenReason(card) : undefined;
    if (code) body.reason = code;
    if (a.tool) body.callHash = a.tool.callHash;
    if (edited) body.arguments = edited;
    const key = await heldKey();
    const note = code ?? (text || undefined);
    if (key) body.signature = await signDecision(key, a, decision, note, edited);
    const passkey = key ? null : await passkeySignature(a, decision, note, edited);
    if (passkey) body.signature = passkey.signature;
    await post(`v1/runs/${enc(a.workflowId)}/approvals/${enc(a.handoffId)}`, body);
    say(
      `${decision === 'approve' ? 'Approved ' : 'Rejected '}${a.from} → ${a.tool ? `tool ${a.tool.name}${edited ? ' with edited arguments' : ''}` : a.to}${key || passkey ? `, signed with ${(key ?? passkey)!.kid}` : ''}`,
      a.workflowId,
    );
    const next = (card.nextElementSibling || card.previousElementSibling) as HTMLElement | null;
    card.remove();
    if (next) next.focus();
    if (onDecided) onDecided();
  } catch (e) {
    // What the service refused (an unknown reason code, a call that changed) stays on the card it is about.
    refused.textContent = `Could not ${decision}: ${messageOf(e)}`;
    refused.hidden = false;
    say(`Could not ${decision}: ${messageOf(e)}`);
    buttons.forEach((b) => (b.disabled = false));
  }
}
