/**
 * The approvals page's script (plain browser JavaScript, served as is): sign in with a token, the
 * live inbox of waiting approvals with approve/reject (a tool call's arguments editable as JSON
 * before approving), and a run's flow and timeline, kept current from the service's event streams
 * (read with fetch, so the token travels in a header, never a URL).
 */
import { STREAM_SCRIPT } from './stream';

export const PAGE_SCRIPT = String.raw`(function () {
'use strict';
var BASE = location.pathname.replace(/runs\/[^/]*\/?$/, '').replace(/[^/]*$/, '');
var TOKEN_KEY = 'baton.token';
var FINAL = { completed: 1, failed: 1, ended: 1 };
var main = document.getElementById('main');
var toastEl = document.getElementById('toast');
var me = null;
var stops = [];

function h(tag, attrs, children) {
  var el = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) {
    var v = attrs[k];
    if (v === undefined || v === null || v === false) return;
    if (k === 'text') el.textContent = v; else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v); else el.setAttribute(k, v === true ? '' : v);
  });
  (children || []).forEach(function (c) { if (c !== null && c !== undefined) el.append(c); });
  return el;
}
function enc(s) { return encodeURIComponent(s); }
function count(n, what) { return n + ' ' + what + (n === 1 ? '' : 's'); }
function token() { return sessionStorage.getItem(TOKEN_KEY); }
function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
function say(message, runId) {
  toastEl.replaceChildren(message);
  if (runId) toastEl.append(' · ', h('a', { href: BASE + 'runs/' + enc(runId), text: 'follow the chain' }));
  toastEl.className = 'toast show';
  clearTimeout(say.timer);
  say.timer = setTimeout(function () { toastEl.className = 'toast'; }, 6000);
}
function ago(iso) {
  var s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return s + ' s ago';
  if (s < 3600) return Math.floor(s / 60) + ' min ago';
  if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min ago';
  return Math.floor(s / 86400) + ' d ago';
}
function until(iso) {
  var s = Math.round((Date.parse(iso) - Date.now()) / 1000);
  if (s <= 0) return 'expiring now';
  return 'expires in ' + (s < 120 ? s + ' s' : s < 7200 ? Math.round(s / 60) + ' min' : Math.round(s / 3600) + ' h');
}

async function api(path, init) {
  init = init || {};
  var headers = Object.assign({ accept: 'application/json' }, init.headers || {}, { authorization: 'Bearer ' + token() });
  var res = await fetch(BASE + path, Object.assign({}, init, { headers: headers }));
  if (res.status === 401) { signOut('The service did not accept your token. Enter it again.'); throw new Error('unauthorized'); }
  if (!res.ok) {
    var problem = await res.json().catch(function () { return {}; });
    throw new Error(problem.detail || res.status + ' ' + res.statusText);
  }
  return res;
}

${STREAM_SCRIPT}
function mayDecide(approvers) {
  if (!me || !me.roles.some(function (r) { return r === 'approver' || r === 'admin'; })) return false;
  return !approvers || approvers.indexOf(me.name) >= 0;
}

function chainLine(a) {
  var chain = a.chain;
  if (!chain) return h('p', { class: 'chain muted', text: 'Chain so far: not available right now.' });
  if (chain.length === 0) return h('p', { class: 'chain muted', text: 'No handoffs yet: ' + a.from + ' has the chain.' });
  var hops = [chain[0].from].concat(chain.map(function (c) { return c.to; }));
  return h('p', { class: 'chain' }, [h('span', { class: 'muted', text: 'Chain so far: ' }), h('b', { text: hops.join(' → ') }), h('span', { class: 'muted', text: ' (' + count(chain.length, 'handoff') + ')' })]);
}

/** A tool call's arguments as the approver edits them: indented JSON, or the model's text when it is not JSON. */
function argumentsText(text) {
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
}

/** What a card shows of what waits: the handoff's message, or the tool call's arguments in an editable box. */
function approvalBody(a, id, canDecide) {
  if (!a.tool) return [h('blockquote', { text: a.message })];
  var args = h('textarea', { id: 'a-' + id, class: 'args', rows: String(Math.min(12, argumentsText(a.tool.argumentsText).split('\n').length + 1)), spellcheck: 'false', disabled: !canDecide });
  args.value = argumentsText(a.tool.argumentsText);
  args.setAttribute('data-original', args.value);
  var hidden = a.sensitive && !a.sensitive.revealed;
  return [
    h('label', { for: 'a-' + id, text: 'Arguments (JSON; edit them to run the call with yours)' }),
    args,
    hidden ? h('p', { class: 'muted small', text: 'Sensitive arguments are hidden (' + (a.sensitive.arguments === true ? 'all of them' : a.sensitive.arguments.join(', ')) + '): only its approvers see them.' }) : null,
    h('p', { class: 'problem args-problem', role: 'alert', hidden: true }),
  ];
}

function approvalCard(a, onDecided) {
  var canDecide = a.canDecide !== undefined ? a.canDecide : mayDecide(a.approvers);
  var id = 'c-' + a.handoffId.replace(/[^a-zA-Z0-9_-]/g, '');
  var comment = h('textarea', { id: id, class: 'comment', rows: '2', placeholder: 'Why (optional; a rejection tells the agent)', disabled: !canDecide });
  var age = h('span', { class: 'age', 'data-at': a.requestedAt, text: ago(a.requestedAt) });
  var target = a.tool ? 'tool ' + a.tool.name : a.to;
  var label = a.tool ? 'Tool call ' + a.tool.name + ' by ' + a.from : 'Handoff ' + a.from + ' to ' + a.to;
  var card = h('li', { class: 'card' + (a.tool ? ' tool' : ''), tabindex: '0', 'data-key': a.workflowId + '/' + a.handoffId, 'aria-label': label + ', asked ' + ago(a.requestedAt) }, [
    h('div', { class: 'route' }, [a.from, h('span', { class: 'arrow', 'aria-hidden': 'true', text: '→' }), target]),
    h('div', { class: 'meta' }, [age, a.expiresAt ? h('span', { text: until(a.expiresAt) + ' (then ' + a.onTimeout + ')' }) : null, h('span', { text: a.approvers ? 'approvers: ' + a.approvers.join(', ') : 'anyone may decide' })]),
  ].concat(approvalBody(a, id, canDecide), [
    chainLine(a),
    h('label', { for: id, text: 'Comment' }),
    comment,
    h('div', { class: 'actions' }, [
      h('button', { class: 'approve', type: 'button', disabled: !canDecide, onclick: function () { decide(a, 'approve', card, onDecided); }, text: 'Approve' }),
      h('button', { class: 'reject', type: 'button', disabled: !canDecide, onclick: function () { decide(a, 'reject', card, onDecided); }, text: 'Reject' }),
      canDecide ? null : h('span', { class: 'muted small', text: 'You are not among its approvers.' }),
      h('a', { class: 'small', href: BASE + 'runs/' + enc(a.workflowId), text: 'Open chain' }),
      a.rootWorkflowId && a.rootWorkflowId !== a.workflowId ? h('a', { class: 'small', href: BASE + 'runs/' + enc(a.rootWorkflowId), text: 'Open top chain' }) : null,
    ]),
  ]));
  card.decide = function (d) { if (canDecide) decide(a, d, card, onDecided); };
  return card;
}

/**
 * The arguments to approve a tool call with: undefined when the box is as it was (the model's
 * arguments run), the edited object, or an Error saying what is wrong with the text.
 */
function editedArguments(card) {
  var box = card.querySelector('textarea.args');
  if (!box || box.value.trim() === box.getAttribute('data-original').trim()) return undefined;
  var value;
  try { value = JSON.parse(box.value); } catch (e) { return new Error('The arguments are not valid JSON: ' + e.message); }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return new Error('The arguments must be a JSON object, like {"orderId": "A1"}.');
  return value;
}

async function decide(a, decision, card, onDecided) {
  var text = card.querySelector('textarea.comment').value.trim();
  var problem = card.querySelector('.args-problem');
  var edited = decision === 'approve' ? editedArguments(card) : undefined;
  if (problem) problem.hidden = true;
  if (edited instanceof Error) {
    problem.textContent = edited.message;
    problem.hidden = false;
    card.querySelector('textarea.args').focus();
    return;
  }
  card.querySelectorAll('button').forEach(function (b) { b.disabled = true; });
  try {
    var body = { decision: decision };
    if (text) body.comment = text;
    if (a.tool) body.callHash = a.tool.callHash;
    if (edited) body.arguments = edited;
    await api('v1/runs/' + enc(a.workflowId) + '/approvals/' + enc(a.handoffId), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    say((decision === 'approve' ? 'Approved ' : 'Rejected ') + a.from + ' → ' + (a.tool ? 'tool ' + a.tool.name + (edited ? ' with edited arguments' : '') : a.to), a.workflowId);
    var next = card.nextElementSibling || card.previousElementSibling;
    card.remove();
    if (next) next.focus();
    if (onDecided) onDecided();
  } catch (e) {
    say('Could not ' + decision + ': ' + e.message);
    card.querySelectorAll('button').forEach(function (b) { b.disabled = false; });
  }
}

function showInbox() {
  document.title = 'Approvals · baton';
  var live = liveBadge();
  var list = h('ul', { class: 'cards', id: 'approvals' });
  var empty = h('p', { class: 'muted', text: 'Nothing waits for approval.', hidden: true });
  var total = h('span', { class: 'muted' });
  main.replaceChildren(
    h('h1', {}, ['Waiting for approval ', total]),
    h('p', { class: 'facts' }, [live.el, h('span', { class: 'keys' }, ['Keys: ', h('kbd', { text: 'j' }), ' / ', h('kbd', { text: 'k' }), ' move, ', h('kbd', { text: 'a' }), ' approve, ', h('kbd', { text: 'r' }), ' reject'])]),
    list,
    empty
  );
  openStream('v1/approvals/events', function (kind, body) {
    if (kind !== 'approvals') return false;
    var keep = {};
    body.approvals.forEach(function (a) { keep[a.workflowId + '/' + a.handoffId] = a; });
    Array.prototype.slice.call(list.children).forEach(function (card) { if (!keep[card.getAttribute('data-key')]) card.remove(); else delete keep[card.getAttribute('data-key')]; });
    body.approvals.forEach(function (a) { if (keep[a.workflowId + '/' + a.handoffId]) list.append(approvalCard(a)); });
    total.textContent = '(' + list.children.length + ')';
    empty.hidden = list.children.length > 0;
    return false;
  }, live.set);
}

async function showRun(id) {
  document.title = id + ' · baton';
  var live = liveBadge();
  var status = h('span', { class: 'badge', text: '…' });
  var facts = h('p', { class: 'facts' });
  var flow = h('div', { class: 'flow', role: 'figure', 'aria-label': 'Handoff flow' });
  var waiting = h('ul', { class: 'cards' });
  var waitingHead = h('h2', { text: 'Waiting for approval', hidden: true });
  var outcome = h('div');
  var timeline = h('ol', { class: 'timeline' });
  main.replaceChildren(
    h('p', { class: 'small' }, [h('a', { href: BASE, text: '← Approvals' })]),
    h('h1', {}, ['Chain ', status]),
    h('p', { class: 'muted small', text: id }),
    facts,
    h('p', {}, [live.el]),
    h('h2', { text: 'Flow' }), flow,
    waitingHead, waiting,
    outcome,
    h('h2', { text: 'Timeline' }), timeline
  );
  var busy = false;
  var again = false;
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      var base = 'v1/runs/' + enc(id);
      var got = await Promise.all([api(base).then(function (r) { return r.json(); }), api(base + '/audit?format=svg').then(function (r) { return r.text(); }), api(base + '/audit?format=timeline').then(function (r) { return r.text(); })]);
      var run = got[0];
      status.textContent = run.status.replace(/_/g, ' ');
      status.className = 'badge ' + run.status;
      facts.replaceChildren.apply(facts, [run.currentAgent ? 'agent: ' + run.currentAgent : null, count(run.chain.length, 'handoff'), count(run.usage.modelCalls, 'model call'), count(run.usage.toolCalls, 'tool call'), count(run.usage.totalTokens, 'token')].filter(Boolean).map(function (t) { return h('span', { text: t }); }));
      // The drawing's own <style> is for the SVG on its own; here the page's stylesheet styles it.
      flow.innerHTML = got[1].replace(/<style>[\s\S]*?<\/style>/, '');
      var pending = run.pendingApprovals.map(function (p) { return Object.assign({ workflowId: id, chain: run.chain }, p); });
      waiting.replaceChildren.apply(waiting, pending.map(function (p) { return approvalCard(p, refresh); }));
      waitingHead.hidden = pending.length === 0;
      if (run.error) outcome.replaceChildren(h('h2', { text: 'Failed' }), h('p', { class: 'problem', text: (run.error.type ? run.error.type + ': ' : '') + run.error.message }));
      else if (run.output !== undefined) outcome.replaceChildren(h('h2', { text: 'Answer' + (run.finalAgent ? ' from ' + run.finalAgent : '') }), h('pre', { class: 'output', text: typeof run.output === 'string' ? run.output : JSON.stringify(run.output, null, 2) }));
      else outcome.replaceChildren();
      timeline.replaceChildren.apply(timeline, got[2].split('\n').map(function (line) {
        var m = /^(\d\d:\d\d:\d\d\.\d{3})  (\S+)\s+(.*)$/.exec(line);
        return m ? h('li', {}, [h('time', { text: m[1] }), h('span', { class: 'actor', text: m[2] }), h('span', { class: 'what', text: m[3] })]) : null;
      }).filter(Boolean));
    } catch (e) {
      if (e.message !== 'unauthorized') outcome.replaceChildren(h('p', { class: 'problem', text: 'Could not load the chain: ' + e.message }));
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  }
  await refresh();
  var timer = null;
  openStream('v1/runs/' + enc(id) + '/events', function (kind) {
    clearTimeout(timer);
    timer = setTimeout(refresh, FINAL[kind] ? 0 : 250);
    return !!FINAL[kind];
  }, live.set);
}

function showSignIn(message) {
  document.title = 'Sign in · baton';
  var input = h('input', { type: 'password', id: 'token', autocomplete: 'off', required: true });
  var problem = h('p', { class: 'problem', text: message || '', hidden: !message });
  main.replaceChildren(h('form', { class: 'signin', onsubmit: async function (e) {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    route();
  } }, [h('h1', { text: 'Sign in' }), h('p', { class: 'muted', text: 'Enter the access token the service gave you. It stays in this browser tab.' }), problem, h('label', { for: 'token', text: 'Access token' }), input, h('div', { class: 'actions' }, [h('button', { class: 'approve', type: 'submit', text: 'Sign in' })])]));
  input.focus();
}

function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  me = null;
  stopAll();
  document.getElementById('who').replaceChildren();
  showSignIn(message);
}

function stopAll() { stops.splice(0).forEach(function (stop) { stop(); }); }

async function route() {
  stopAll();
  if (!token()) return showSignIn();
  try {
    me = await (await api('v1/me')).json();
  } catch (e) {
    if (e.message !== 'unauthorized') main.replaceChildren(h('p', { class: 'problem', text: 'The service cannot be reached: ' + e.message }));
    return;
  }
  document.getElementById('who').replaceChildren(h('span', { text: me.name + ' · ' + me.roles.join(', ') }), h('button', { class: 'link', type: 'button', onclick: function () { signOut(); }, text: 'Sign out' }));
  var m = /runs\/([^/]+)\/?$/.exec(location.pathname);
  if (m) await showRun(decodeURIComponent(m[1])); else showInbox();
}

document.addEventListener('keydown', function (e) {
  if (e.ctrlKey || e.metaKey || e.altKey || /^(TEXTAREA|INPUT|SELECT)$/.test(e.target.tagName)) return;
  var cards = Array.prototype.slice.call(document.querySelectorAll('.card'));
  if (cards.length === 0) return;
  var card = e.target.closest && e.target.closest('.card');
  var i = cards.indexOf(card);
  if (e.key === 'j' || e.key === 'k') {
    var next = cards[Math.min(cards.length - 1, Math.max(0, i + (e.key === 'j' ? 1 : -1)))] || cards[0];
    next.focus();
    e.preventDefault();
  } else if ((e.key === 'a' || e.key === 'r') && card && card.decide) {
    card.decide(e.key === 'a' ? 'approve' : 'reject');
    e.preventDefault();
  }
});
setInterval(function () {
  document.querySelectorAll('.age').forEach(function (el) { el.textContent = ago(el.getAttribute('data-at')); });
}, 1000);
document.getElementById('home').setAttribute('href', BASE);
document.getElementById('nav-inbox').setAttribute('href', BASE);
route();
})();
`;
