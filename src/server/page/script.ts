/**
 * The approvals page's script (plain browser JavaScript, served as is): sign in with a token, the
 * live inbox of waiting approvals with approve/reject (a tool call's arguments editable as JSON
 * before approving), and a run's flow and timeline, kept current from the service's event streams
 * (read with fetch, so the token travels in a header, never a URL).
 */
import { CARDS_SCRIPT } from './cards';
import { REPORTS_SCRIPT } from './reports';
import { RUN_SCRIPT } from './run';
import { SIGNING_SCRIPT } from './signing';
import { STREAM_SCRIPT } from './stream';

export const PAGE_SCRIPT = String.raw`(function () {
'use strict';
var BASE = location.pathname.replace(/(runs|evals|experiments)\/[^/]*\/?$/, '').replace(/[^/]*$/, '');
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
function costText(c) {
  if (!c) return null;
  var amount = (c.micros / 1e6).toFixed(6) + ' ' + c.currency;
  return c.unpricedCalls > 0 ? 'cost unknown (' + count(c.unpricedCalls, 'call') + ' unpriced; at least ' + amount + ')' : 'cost: ' + amount;
}
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
${SIGNING_SCRIPT}
${CARDS_SCRIPT}
function showInbox() {
  document.title = 'Approvals · baton';
  var live = liveBadge();
  var list = h('ul', { class: 'cards', id: 'approvals' });
  var empty = h('p', { class: 'muted', text: 'Nothing waits for approval.', hidden: true });
  var total = h('span', { class: 'muted' });
  main.replaceChildren(
    h('h1', {}, ['Waiting for approval ', total]),
    h('p', { class: 'facts' }, [live.el, h('span', { class: 'keys' }, ['Keys: ', h('kbd', { text: 'j' }), ' / ', h('kbd', { text: 'k' }), ' move, ', h('kbd', { text: 'a' }), ' approve, ', h('kbd', { text: 'r' }), ' reject'])]),
    keyPanel(),
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
  var flowHint = h('p', { class: 'muted small', text: 'The flow is wider than the screen: scroll it sideways.', hidden: true });
  var request = h('p', { class: 'request' });
  var waiting = h('ul', { class: 'cards' });
  var waitingHead = h('h2', { text: 'Waiting for approval', hidden: true });
  var outcome = h('div');
  var forming = formingAnswer();
  var timeline = h('ol', { class: 'timeline' });
  main.replaceChildren(
    h('p', { class: 'small' }, [h('a', { href: BASE, text: '← Approvals' })]),
    h('h1', {}, ['Chain ', status]),
    h('p', { class: 'muted small chain-id', text: id }),
    request,
    facts,
    h('p', {}, [live.el]),
    h('h2', { text: 'Flow' }), flow, flowHint,
    waitingHead, waiting,
    forming.el, outcome,
    h('h2', { text: 'Timeline' }), timeline,
    h('h2', { text: 'Evaluation' }), datasetActions(id)
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
      facts.replaceChildren.apply(facts, [run.currentAgent ? 'agent: ' + run.currentAgent : null, run.team ? 'team: ' + run.team : null, count(run.chain.length, 'handoff'), count(run.usage.modelCalls, 'model call'), count(run.usage.toolCalls, 'tool call'), count(run.usage.totalTokens, 'token'), costText(run.usage.cost)].filter(Boolean).map(function (t) { return h('span', { text: t }); }));
      // The drawing's own <style> is for the SVG on its own; here the page's stylesheet styles it.
      flow.innerHTML = got[1].replace(/<style>[\s\S]*?<\/style>/, '');
      flow.querySelectorAll('[data-workflow-id]').forEach(function (a) { a.setAttribute('href', BASE + 'runs/' + enc(a.getAttribute('data-workflow-id'))); });
      fitFlow(flow, flowHint);
      var asked = run.input ? { agent: run.input.agent, input: String(run.input.input).slice(0, 400), truncated: String(run.input.input).length > 400, startedAt: run.startedAt, startedBy: run.startedBy, parent: run.input.parent } : undefined;
      request.replaceChildren.apply(request, asked ? [h('span', { class: 'muted', text: 'Request to ' + asked.agent + (asked.startedBy ? ' from ' + asked.startedBy : '') + ': ' }), h('q', { text: asked.input + (asked.truncated ? '…' : '') })].concat(asked.parent ? [h('span', { class: 'muted', text: ' · specialist of ' }), runLink(asked.parent.workflowId)] : []) : []);
      var pending = run.pendingApprovals.map(function (p) { return Object.assign({ workflowId: id, chain: run.chain, request: asked }, p); });
      waiting.replaceChildren.apply(waiting, pending.map(function (p) { return approvalCard(p, refresh); }));
      waitingHead.hidden = pending.length === 0;
      if (run.output !== undefined || run.error) forming.done();
      if (run.error) outcome.replaceChildren(h('h2', { text: 'Failed' }), h('p', { class: 'problem', text: (run.error.type ? run.error.type + ': ' : '') + run.error.message }));
      else if (run.output !== undefined) outcome.replaceChildren(h('h2', { text: 'Answer' + (run.finalAgent ? ' from ' + run.finalAgent : '') }), h('pre', { class: 'output', text: typeof run.output === 'string' ? run.output : JSON.stringify(run.output, null, 2) }));
      else outcome.replaceChildren();
      timeline.replaceChildren.apply(timeline, got[2].split('\n').map(function (line) {
        var m = /^(\d\d:\d\d:\d\d\.\d{3})  (\S+)\s+(.*)$/.exec(line);
        return m ? h('li', {}, [h('time', { text: m[1] }), h('span', { class: 'actor', text: m[2] }), h('span', { class: 'what' }, linkedChains(m[3]))]) : null;
      }).filter(Boolean));
    } catch (e) {
      if (e.message !== 'unauthorized') outcome.replaceChildren(h('p', { class: 'problem', text: 'Could not load the chain: ' + e.message }));
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  }
  await refresh();
  var onResize = function () { fitFlow(flow, flowHint); };
  window.addEventListener('resize', onResize);
  stops.push(function () { window.removeEventListener('resize', onResize); });
  var timer = null;
  openStream('v1/runs/' + enc(id) + '/stream', function (kind, body) {
    // The answer forming shows at once; the rest of the page follows the chain's events.
    if (kind === 'text' || kind === 'text_reset') { forming.apply(body); return false; }
    clearTimeout(timer);
    timer = setTimeout(refresh, FINAL[kind] ? 0 : 250);
    return !!FINAL[kind];
  }, live.set);
}

${RUN_SCRIPT}
${REPORTS_SCRIPT}
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
  var m = /(runs|evals|experiments)\/([^/]+)\/?$/.exec(location.pathname);
  if (!m) showInbox();
  else if (m[1] === 'evals') await showEval(decodeURIComponent(m[2]));
  else if (m[1] === 'experiments') await showExperiment(decodeURIComponent(m[2]));
  else await showRun(decodeURIComponent(m[2]));
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
