/**
 * A card's request-info and typed reasons: the questions asked about a waiting approval with their
 * answers, an Ask field for its approvers while none is open and an Answer field for whoever may
 * answer for the requester while one is; and, when the team declares `rejectionReasons`, a select
 * of their codes sent with a rejection. The block shows what the service answered at once, and what
 * it refused (a second question, an oversized text) in the card.
 */
import { post } from './api';
import { enc, h, messageOf, say, type Child } from './dom';
import { session } from './session';
import type { Approval, Question } from './types';

/** The code chosen in a card's reason select, when the team declares reasons and one is chosen. */
export function chosenReason(card: HTMLElement): string | undefined {
  const select = card.querySelector<HTMLSelectElement>('select.reason-code');
  return select && select.value ? select.value : undefined;
}

/**
 * What a card shows of its questions, as an attribute: a list that keeps a card while it is the
 * same rebuilds it when this changes (a question asked or answered elsewhere).
 */
export function questionsMark(a: Approval): string {
  const qs = a.questions ?? [];
  return `${qs.length}${waitsForAnswer(qs) ? '?' : ''}`;
}

/** Whether the last question asked still waits for its answer. */
function waitsForAnswer(questions: readonly Question[]): boolean {
  return questions.length > 0 && questions[questions.length - 1]!.answer === undefined;
}

/** The reason select (when the team declares reasons) and the questions block, for the card of `a`. */
export function requestInfoBlock(a: Approval, id: string, canDecide: boolean, changed?: () => unknown): Child[] {
  return [reasonSelect(a, id, canDecide), questionsBlock(a, id, canDecide, changed)];
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

/** Whether the signed-in person answers for requesters: the service lets whoever may start chains. */
function mayAnswer(): boolean {
  return !!session.me && session.me.roles.some((r) => r === 'starter' || r === 'admin');
}

function questionItem(q: Question): HTMLLIElement {
  return h('li', { class: 'question' }, [
    h('span', { class: 'muted', text: `${q.askedBy} asked: ` }),
    h('q', { text: q.question }),
    q.answer !== undefined
      ? h('span', { class: 'answer' }, [
          h('span', { class: 'muted', text: ` · ${q.answeredBy ?? 'the requester'} answered: ` }),
          h('q', { text: q.answer }),
        ])
      : h('span', { class: 'muted waits', text: ' · waits for the answer' }),
  ]);
}

/** The questions block: drawn from `a.questions`, and drawn again from what the service answers to an ask or an answer. */
function questionsBlock(a: Approval, id: string, canDecide: boolean, changed?: () => unknown): HTMLElement {
  const block = h('div', { class: 'questions' });
  const problem = h('p', { class: 'problem question-problem', role: 'alert', hidden: true });
  const path = `v1/runs/${enc(a.workflowId)}/approvals/${enc(a.handoffId)}`;
  let questions: Question[] = [...(a.questions ?? [])];
  const draw = (): void => {
    const open = waitsForAnswer(questions);
    let form: HTMLElement | null = null;
    if (open && mayAnswer())
      form = field(id, 'answer', 'Answer for the requester', (text) => post(`${path}/answer`, { answer: text }));
    else if (!open && canDecide)
      form = field(id, 'ask', 'Ask the requester', (text) => post(`${path}/questions`, { question: text }));
    block.replaceChildren(
      ...[
        questions.length ? h('ul', { class: 'questions small' }, questions.map(questionItem)) : null,
        form,
        problem,
      ].filter((c): c is HTMLElement => !!c),
    );
    block.hidden = questions.length === 0 && !form;
  };
  const field = (
    fid: string,
    kind: 'ask' | 'answer',
    label: string,
    send: (text: string) => Promise<Response>,
  ): HTMLElement => {
    const input = h('input', { id: `${kind}-${fid}`, class: `${kind}-text`, type: 'text' });
    const button = h('button', { class: kind, type: 'button', text: kind === 'ask' ? 'Ask' : 'Answer' });
    button.onclick = async () => {
      problem.hidden = true;
      const text = input.value.trim();
      if (!text) {
        shown(problem, kind === 'ask' ? 'Write the question first.' : 'Write the answer first.');
        input.focus();
        return;
      }
      button.disabled = true;
      try {
        const recorded = (await (await send(text)).json()) as Question;
        // What the chain recorded is what the card shows now; the list catches up on its next read.
        questions = kind === 'ask' ? [...questions, recorded] : [...questions.slice(0, -1), recorded];
        draw();
        say(kind === 'ask' ? `Asked: ${text}` : `Answered: ${text}`, a.workflowId);
        if (changed) changed();
      } catch (e) {
        shown(problem, `Could not ${kind}: ${messageOf(e)}`);
        button.disabled = false;
      }
    };
    return h('p', { class: `${kind}-form` }, [h('label', { for: `${kind}-${fid}`, text: `${label} ` }), input, button]);
  };
  draw();
  return block;
}

function shown(problem: HTMLElement, text: string): void {
  problem.textContent = text;
  problem.hidden = false;
}
