/**
 * The approvals page's script (bundled into one file by esbuild, served as `assets/baton.js`): sign
 * in with a token, the inbox of what waits (filtered, paged, kept live) with approve/reject one by
 * one or in batches (a tool call's arguments editable as JSON before approving), a run's flow and
 * timeline kept current from the service's event streams (read with fetch, so the token travels in
 * a header, never a URL), and the evaluation views.
 */
import { apiJson } from './api';
import type { Card } from './cards';
import { ago, h, messageOf } from './dom';
import { showInbox } from './inbox';
import { showEval, showExperiment } from './reports';
import { showRun } from './run';
import { BASE, session, setToken, signOut, stopAll, token, whenSignedOut, type Me } from './session';

const main = document.getElementById('main')!;

function showSignIn(message?: string): void {
  document.title = 'Sign in · baton';
  const input = h('input', { type: 'password', id: 'token', autocomplete: 'off', required: true });
  const problem = h('p', { class: 'problem', text: message || '', hidden: !message });
  const submit = (e: Event) => {
    e.preventDefault();
    setToken(input.value.trim());
    void route();
  };
  main.replaceChildren(
    h('form', { class: 'signin', onsubmit: submit }, [
      h('h1', { text: 'Sign in' }),
      h('p', { class: 'muted', text: 'Enter the access token the service gave you. It stays in this browser tab.' }),
      problem,
      h('label', { for: 'token', text: 'Access token' }),
      input,
      h('div', { class: 'actions' }, [h('button', { class: 'approve', type: 'submit', text: 'Sign in' })]),
    ]),
  );
  input.focus();
}

async function route(): Promise<void> {
  stopAll();
  if (!token()) return showSignIn();
  try {
    session.me = await apiJson<Me>('v1/me');
  } catch (e) {
    if (messageOf(e) !== 'unauthorized')
      main.replaceChildren(h('p', { class: 'problem', text: `The service cannot be reached: ${messageOf(e)}` }));
    return;
  }
  const me = session.me;
  document
    .getElementById('who')!
    .replaceChildren(
      h('span', { text: `${me.name} · ${me.roles.join(', ')}` }),
      h('button', { class: 'link', type: 'button', onclick: () => signOut(), text: 'Sign out' }),
    );
  const m = /(runs|evals|experiments)\/([^/]+)\/?$/.exec(location.pathname);
  if (!m) showInbox(main);
  else if (m[1] === 'evals') await showEval(main, decodeURIComponent(m[2]!));
  else if (m[1] === 'experiments') await showExperiment(main, decodeURIComponent(m[2]!));
  else await showRun(main, decodeURIComponent(m[2]!));
}

document.addEventListener('keydown', (e) => {
  const target = e.target as HTMLElement;
  if (e.ctrlKey || e.metaKey || e.altKey || /^(TEXTAREA|INPUT|SELECT)$/.test(target.tagName)) return;
  const cards = Array.from(document.querySelectorAll<Card>('.card'));
  if (cards.length === 0) return;
  const card = target.closest ? target.closest<Card>('.card') : null;
  const i = card ? cards.indexOf(card) : -1;
  if (e.key === 'j' || e.key === 'k') {
    const next = cards[Math.min(cards.length - 1, Math.max(0, i + (e.key === 'j' ? 1 : -1)))] || cards[0]!;
    next.focus();
    e.preventDefault();
  } else if (e.key === 'x' && card && card.toggle) {
    card.toggle();
    e.preventDefault();
  } else if ((e.key === 'a' || e.key === 'r') && card && card.decide) {
    card.decide(e.key === 'a' ? 'approve' : 'reject');
    e.preventDefault();
  }
});
setInterval(() => {
  document.querySelectorAll('.age').forEach((el) => {
    el.textContent = ago(el.getAttribute('data-at')!);
  });
}, 1000);
document.getElementById('home')!.setAttribute('href', BASE);
document.getElementById('nav-inbox')!.setAttribute('href', BASE);
whenSignedOut(showSignIn);
void route();
