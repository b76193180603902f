/**
 * A card's request-info and typed reasons: the questions asked about a waiting approval with their
 * answers, an Ask field for its approvers and an Answer field while a question waits; and, when
 * the team declares `rejectionReasons`, a select of their codes sent with a rejection.
 */
import { post } from './api';
import { enc, h, messageOf, say, type Child } from './dom';
import { session } from './session';
import type { Approval } from './types';

/** The code chosen in a card's reason select, when the team declares reasons and one is chosen. */
export function chosenReason(card: HTMLElement): string | undefined {
  const select = card.querySelector<HTMLSelectElement>('select.reason-code');
  return select && select.value ? select.value : undefined;
}

/** The reason select (when the team declares reasons) and the questions block, for the card of `a`. */
export function requestInfoBlock(a: Approval, id: string, canDecide: boolean, refresh?: () => unknown): Child[] {
  return [reasonSelect(a, id, canDecide), questionsBlock(a, id, canDecide, refresh)];
}

function reasonSelect(a: Approval, id: string, canDecide: boolean): Child {
  const reasons = a.rejectionReasons;
  if (!reasons || reasons.length === 0) return null;
  const select = h('select', { id: `r-${id}`, class: 'reason-code', disabled: !canDecide }, [
    h('option', { value: '', text: 'Rejection reason (choose one to reject)' }),
    ...reasons.map((r) => h('option', { value: r.code, text: `${r.label} (${r.code})` })),
  ]);
  return h('p', { class: 'reason' }, [h('label', { for: `r-${id}`, text: 'Reason ' }), select]);
}

function questionsBlock(a: Approval, id: string, canDecide: boolean, refresh?: () => unknown): Child {
  const questions = a.questions ?? [];
  const open = questions.length > 0 && questions[questions.length - 1]!.answer === undefined;
  const asked = questions.map((q) =>
    h('li', { class: 'question' }, [
      h('span', { class: 'muted', text: `${q.askedBy} asked: ` }),
      h('q', { text: q.question }),
      q.answer !== undefined ? h('span', { class: 'answer' }, [h('span', { class: 'muted', text: ` · ${q.answeredBy ?? 'the requester'} answered: ` }), h('q', { text: q.answer })]) : h('span', { class: 'muted', text: ' · waits for the answer' }),
    ]),
  );
  const path = `v1/runs/${enc(a.workflowId)}/approvals/${enc(a.handoffId)}`;
  const starts = !!session.me && session.me.roles.some((r) => r === 'starter' || r === 'admin');
  const form = open ? (starts ? field(id, 'answer', 'Answer', (text) => post(`${path}/answer`, { answer: text }), refresh) : null) : canDecide ? field(id, 'ask', 'Ask the requester', (text) => post(`${path}/questions`, { question: text }), refresh) : null;
  if (asked.length === 0 && !form) return null;
  return h('div', { class: 'questions' }, [asked.length ? h('ul', { class: 'questions small' }, asked) : null, form]);
}

function field(id: string, kind: 'ask' | 'answer', label: string, send: (text: string) => Promise<Response>, refresh?: () => unknown): HTMLElement {
  const input = h('input', { id: `${kind}-${id}`, class: `${kind}-text`, type: 'text', maxlength: '2000' });
  const button = h('button', { class: kind, type: 'button', text: kind === 'ask' ? 'Ask' : 'Answer' });
  button.onclick = async () => {
    const text = input.value.trim();
    if (!text) {
      say(kind === 'ask' ? 'Write the question first.' : 'Write the answer first.');
      input.focus();
      return;
    }
    button.disabled = true;
    try {
      await send(text);
      say(kind === 'ask' ? `Asked: ${text}` : `Answered: ${text}`);
      input.value = '';
      if (refresh) refresh();
    } catch (e) {
      say(`Could not ${kind}: ${messageOf(e)}`);
    } finally {
      button.disabled = false;
    }
  };
  return h('p', { class: `${kind}-form` }, [h('label', { for: `${kind}-${id}`, text: `${label} ` }), input, button]);
}
