/**
 * The approval cards of the page: a card made of what it shows (./cardContent.ts), decided from
 * its buttons or, a key pressed twice, from the keyboard; what was typed in it kept when it is made
 * again; and the decision sent, with edited arguments and a signature when the viewer holds a key.
 */
import { post } from './api';
import { approvalBody, chainLine, mayDecide, requestBlock, whyNot } from './cardContent';
import { ago, enc, h, messageOf, say, until, type Child } from './dom';
import { BASE } from './session';
import { passkeySignature } from './passkey';
import { chosenReason, questionsMark, requestInfoBlock } from './requestInfo';
import { heldKey, signDecision } from './signing';
import type { Approval } from './types';

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
