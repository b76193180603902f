/**
 * Batch decisions on the inbox: a selection of similar waiting calls (one tool with the same argument
 * fields, or one handoff edge), approved or rejected together through `POST /v1/approvals/batch`.
 * Each is its own decision bound to its own call (its `callHash`); with a key held in this browser
 * each is signed on its own, and without one, with the approver's passkey when this browser
 * registered one: an assertion per decision, each over that decision's digest, asked one after
 * another (an authenticator answers one request at a time). Each outcome is shown on its own, in the
 * batch's result and on its card, a refused one with its reason.
 */
import { post } from './api';
import { count, h, messageOf, runLink } from './dom';
import { passkeySignature } from './passkey';
import { heldKey, signDecision } from './signing';
import type { BatchOutcome, InboxItem } from './types';

type Decision = 'approve' | 'reject';

/** Where an approval waits: what the batch and the list name it by. */
export function itemKey(i: { workflowId: string; handoffId: string }): string {
  return `${i.workflowId}/${i.handoffId}`;
}

/** The selection of one page of the inbox, its checkboxes and its bar. */
export interface Selection {
  /** The bar: how many are selected, the comment, approve and reject. */
  bar: HTMLElement;
  /** The outcomes of the last batch. */
  results: HTMLElement;
  /** A checkbox that selects `item`, kept in step with the selection. */
  checkbox(item: InboxItem, id: string): HTMLInputElement;
  /** Select every listed call alike to `item`. */
  similar(item: InboxItem): void;
  /** The page now lists `items`: what is selected and no longer listed leaves the selection. */
  listed(items: InboxItem[]): void;
}

/** What a similar key says to people: `tool issueRefund (amount, orderId)` or `handoff triage → billing`. */
function similarText(key: string): string {
  const tool = /^tool:([^(]*)\((.*)\)$/.exec(key);
  if (tool) return `tool ${tool[1]}${tool[2] ? ` (${tool[2].split(',').join(', ')})` : ''}`;
  return `handoff ${key.replace(/^handoff:/, '').replace('>', ' → ')}`;
}

/** A decision of a batch as this browser signed it: with which key, or why it could not be. */
interface Signed {
  item: InboxItem;
  signature?: string;
  kid?: string;
  /** Why it is not sent: the passkey gave no assertion for it. */
  problem?: string;
}

/**
 * Each decision of a batch signed on its own: with the key held here, else with the approver's
 * passkey (one assertion per decision, in turn; one the authenticator refuses leaves that decision
 * out, and a prompt the person cancels leaves out the rest of the batch too), else unsigned (the
 * service signs when it has a key).
 */
async function signAll(items: InboxItem[], decision: Decision, note: string | undefined): Promise<Signed[]> {
  const key = await heldKey();
  if (key)
    return Promise.all(
      items.map(async (item) => ({
        item,
        kid: key.kid,
        signature: await signDecision(key, item, decision, note, undefined),
      })),
    );
  const out: Signed[] = [];
  let cancelled: string | undefined;
  for (const item of items) {
    // The person cancelled the prompt: the decisions after it are not asked for one by one.
    if (cancelled) {
      out.push({ item, problem: `not signed: ${cancelled}` });
      continue;
    }
    try {
      const passkey = await passkeySignature(item, decision, note, undefined);
      out.push(passkey ? { item, ...passkey } : { item });
    } catch (e) {
      out.push({ item, problem: `not signed: ${messageOf(e)}` });
      if (e instanceof DOMException && e.name === 'NotAllowedError')
        cancelled = `the passkey prompt was cancelled (${messageOf(e)})`;
    }
  }
  return out;
}

/** A selection whose batches call `decided` with the keys they decided. */
export function batchSelection(decided: (keys: string[]) => void): Selection {
  const chosen = new Map<string, InboxItem>();
  let boxes: { item: InboxItem; box: HTMLInputElement }[] = [];
  let shown: InboxItem[] = [];
  const summary = h('p', { class: 'batch-summary' });
  const comment = h('textarea', {
    id: 'batch-comment',
    class: 'comment',
    rows: '2',
    placeholder: 'Why (optional; a rejection tells each agent)',
  });
  const approve = h('button', { class: 'approve', type: 'button', onclick: () => void send('approve') });
  const reject = h('button', { class: 'reject', type: 'button', onclick: () => void send('reject') });
  const clear = h('button', { class: 'link', type: 'button', text: 'Clear selection', onclick: () => set([]) });
  const bar = h('section', { class: 'batch', 'aria-label': 'Batch decision', hidden: true }, [
    h('div', { class: 'batch-head' }, [summary, clear]),
    h('label', { for: 'batch-comment', text: 'Comment for each decision' }),
    comment,
    h('div', { class: 'actions' }, [approve, reject]),
  ]);
  const results = h('section', { class: 'batch-results', 'aria-label': 'Batch result', hidden: true });

  function kind(): string | undefined {
    return chosen.size > 0 ? chosen.values().next().value!.similarKey : undefined;
  }

  function sync(): void {
    const k = kind();
    for (const { item, box } of boxes) {
      box.checked = chosen.has(itemKey(item));
      box.disabled = item.canDecide === false || (k !== undefined && item.similarKey !== k);
      box.title =
        item.canDecide === false
          ? 'You may not decide this'
          : box.disabled
            ? `Only calls alike to the selection (${similarText(k!)}) join it`
            : '';
    }
    bar.hidden = chosen.size === 0;
    if (k === undefined) return;
    summary.textContent = `${chosen.size} selected: ${similarText(k)}`;
    approve.textContent = `Approve ${chosen.size}`;
    reject.textContent = `Reject ${chosen.size}`;
  }

  function set(items: InboxItem[]): void {
    chosen.clear();
    for (const i of items) chosen.set(itemKey(i), i);
    sync();
  }

  async function send(decision: Decision): Promise<void> {
    const items = [...chosen.values()];
    if (items.length === 0) return;
    const text = comment.value.trim();
    approve.disabled = reject.disabled = true;
    try {
      const signed = await signAll(items, decision, text || undefined);
      const sent = signed.filter((s) => !s.problem);
      const approvals = sent.map(({ item: i, signature }) => ({
        workflowId: i.workflowId,
        approvalId: i.handoffId,
        ...(i.tool ? { callHash: i.tool.callHash } : {}),
        ...(signature ? { signature } : {}),
      }));
      const answered =
        approvals.length > 0
          ? (
              (await (
                await post('v1/approvals/batch', { decision, ...(text ? { comment: text } : {}), approvals })
              ).json()) as { outcomes: BatchOutcome[] }
            ).outcomes
          : [];
      const outcomes = new Map(answered.map((o) => [`${o.workflowId}/${o.approvalId}`, o]));
      // In the order selected: each with the service's outcome, or why it was not sent.
      const shown = signed.map((s) => ({
        ...s,
        outcome: outcomes.get(itemKey(s.item)) ?? {
          workflowId: s.item.workflowId,
          approvalId: s.item.handoffId,
          ok: false,
          reason: s.problem ?? 'the service gave no outcome for it',
        },
      }));
      show(decision, shown);
      comment.value = '';
      set([]);
      decided(answered.filter((o) => o.ok).map((o) => `${o.workflowId}/${o.approvalId}`));
    } catch (e) {
      results.replaceChildren(
        h('h2', { text: 'Batch result' }),
        h('p', {
          class: 'problem',
          role: 'alert',
          text: `The batch was not sent: ${messageOf(e)}. Nothing in it was decided.`,
        }),
      );
      results.hidden = false;
    } finally {
      approve.disabled = reject.disabled = false;
    }
  }

  function show(decision: Decision, shown: (Signed & { outcome: BatchOutcome })[]): void {
    const outcomes = shown.map((s) => s.outcome);
    const done = outcomes.filter((o) => o.ok).length;
    const verb = decision === 'approve' ? 'approved' : 'rejected';
    const lines = shown.map(({ item: i, kid, outcome: o }) => {
      const what = i.tool ? `tool ${i.tool.name} by ${i.from}` : `handoff ${i.from} → ${i.to}`;
      const reason = o.reason ?? o.error ?? 'refused';
      // A refused one stays listed: its card says why too.
      const onCard = document.querySelector<HTMLElement>(`.card[data-key="${CSS.escape(itemKey(i))}"] .decide-problem`);
      if (onCard && !o.ok) Object.assign(onCard, { textContent: `Not ${verb} in the batch: ${reason}`, hidden: false });
      return h('li', { class: o.ok ? 'applied' : 'refused', 'data-key': itemKey(i) }, [
        h('strong', { text: o.ok ? `${verb[0]!.toUpperCase()}${verb.slice(1)}` : 'Refused' }),
        `: ${what} in chain `,
        h('code', {}, [runLink(i.workflowId)]),
        kid ? `, signed with ${kid}` : '',
        o.ok ? '' : h('span', { class: 'problem' }, [` — ${reason}`]),
      ]);
    });
    results.replaceChildren(
      h('h2', { text: 'Batch result' }),
      h('p', {
        role: 'status',
        text: `${done} of ${count(outcomes.length, 'decision')} ${verb}${done < outcomes.length ? `; ${outcomes.length - done} refused` : ''}.`,
      }),
      h('ul', { class: 'outcomes' }, lines),
    );
    results.hidden = false;
  }

  return {
    bar,
    results,
    checkbox(item, id) {
      const box = h('input', { type: 'checkbox', id, class: 'pick-box' });
      box.addEventListener('change', () => {
        if (box.checked) chosen.set(itemKey(item), item);
        else chosen.delete(itemKey(item));
        sync();
      });
      boxes.push({ item, box });
      sync();
      return box;
    },
    similar(item) {
      set(shown.filter((i) => i.similarKey === item.similarKey && i.canDecide !== false));
    },
    listed(items) {
      shown = items;
      const keys = new Set(items.map(itemKey));
      boxes = boxes.filter((b) => keys.has(itemKey(b.item)) && b.box.isConnected);
      for (const k of [...chosen.keys()]) if (!keys.has(k)) chosen.delete(k);
      sync();
    },
  };
}
