/**
 * The approval cards of the page (plain browser JavaScript, part of the page script): what waits,
 * in which chain and for what request, who may decide it (and why the viewer may not), the
 * arguments of a tool call to edit, and the decision sent.
 */
export const CARDS_SCRIPT = String.raw`function decidesAny() { return !!me && me.roles.some(function (r) { return r === 'approver' || r === 'admin'; }); }
function mayDecide(approvers) {
  if (!decidesAny()) return false;
  return !approvers || approvers.indexOf(me.name) >= 0;
}
/** Why the viewer cannot decide an approval: their role, or the approvers it names. */
function whyNot(a) {
  if (!me) return 'Sign in to decide.';
  if (!decidesAny()) return 'You cannot decide approvals: you are signed in as ' + me.name + ' with the role' + (me.roles.length === 1 ? ' ' : 's ') + (me.roles.join(', ') || 'none') + ', and deciding needs approver or admin.';
  if (a.approvers && a.approvers.indexOf(me.name) < 0) return 'Only ' + a.approvers.join(', ') + (a.approvers.length === 1 ? ' decides' : ' decide') + ' this; you are signed in as ' + me.name + '.';
  return 'You may not decide this.';
}
function runLink(id, text) { return h('a', { href: BASE + 'runs/' + enc(id), text: text || id }); }

/** What the chain was asked, and which chain it is: its id (a link to its page), when and by whom it started. */
function requestBlock(a) {
  var r = a.request;
  var who = [];
  if (r && r.startedAt) who.push(h('span', { 'data-at': r.startedAt, class: 'age', text: ago(r.startedAt) }));
  if (r && r.startedBy) who.push('by ' + r.startedBy);
  else if (r && r.client) who.push('by client ' + r.client);
  var chainLine = h('p', { class: 'which small' }, [h('span', { class: 'muted', text: 'Chain ' }), h('code', {}, [runLink(a.workflowId)])]
    .concat(who.length ? [h('span', { class: 'muted', text: ' · started ' }), who[0]].concat(who.slice(1).map(function (w) { return ' ' + w; })) : [])
    .concat(r && r.parent ? [h('span', { class: 'muted', text: ' · specialist of ' }), h('code', {}, [runLink(r.parent.workflowId)])] : []));
  if (!r) return [chainLine, h('p', { class: 'request muted small', text: 'Request: not available right now.' })];
  var asked = function (label, q) { return h('p', { class: 'request' }, [h('span', { class: 'muted', text: label + ' to ' + q.agent + ': ' }), h('q', { text: q.input + (q.truncated ? '…' : '') })]); };
  // A specialist was given a task; what the customer first asked comes from the top chain.
  return [chainLine].concat(r.original ? [asked('Original request', r.original), asked('Task', r)] : [asked('Request', r)]);
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
  var text = argumentsText(a.tool.argumentsText !== undefined ? a.tool.argumentsText : typeof a.tool.arguments === 'string' ? a.tool.arguments : JSON.stringify(a.tool.arguments));
  var args = h('textarea', { id: 'a-' + id, class: 'args', rows: String(Math.min(12, text.split('\n').length + 1)), spellcheck: 'false', disabled: !canDecide });
  args.value = text;
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
  var label = (a.tool ? 'Tool call ' + a.tool.name + ' by ' + a.from : 'Handoff ' + a.from + ' to ' + a.to) + ' in chain ' + a.workflowId + (a.request ? ' (request: ' + a.request.input.slice(0, 80) + ')' : '');
  var card = h('li', { class: 'card' + (a.tool ? ' tool' : ''), tabindex: '0', 'data-key': a.workflowId + '/' + a.handoffId, 'aria-label': label + ', asked ' + ago(a.requestedAt) }, [
    h('div', { class: 'route' }, [a.from, h('span', { class: 'arrow', 'aria-hidden': 'true', text: '→' }), target]),
  ].concat(requestBlock(a), [
    h('div', { class: 'meta' }, [h('span', {}, ['asked ', age]), a.expiresAt ? h('span', { text: until(a.expiresAt) + ' (then ' + a.onTimeout + ')' }) : null, h('span', { text: a.approvers ? 'approvers: ' + a.approvers.join(', ') : 'anyone may decide' }), a.requireSignature ? h('span', { class: 'signed-only', text: 'needs a signed decision' }) : null]),
  ], approvalBody(a, id, canDecide), [
    chainLine(a),
    h('label', { for: id, text: 'Comment' }),
    comment,
    h('div', { class: 'actions' }, [
      h('button', { class: 'approve', type: 'button', disabled: !canDecide, onclick: function () { decide(a, 'approve', card, onDecided); }, text: 'Approve' }),
      h('button', { class: 'reject', type: 'button', disabled: !canDecide, onclick: function () { decide(a, 'reject', card, onDecided); }, text: 'Reject' }),
      canDecide ? null : h('span', { class: 'muted small why-not', text: whyNot(a) }),
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
    var key = await heldKey();
    if (key) body.signature = await signDecision(key, a, decision, text || undefined, edited);
    await api('v1/runs/' + enc(a.workflowId) + '/approvals/' + enc(a.handoffId), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    say((decision === 'approve' ? 'Approved ' : 'Rejected ') + a.from + ' → ' + (a.tool ? 'tool ' + a.tool.name + (edited ? ' with edited arguments' : '') : a.to) + (key ? ', signed with ' + key.kid : ''), a.workflowId);
    var next = card.nextElementSibling || card.previousElementSibling;
    card.remove();
    if (next) next.focus();
    if (onDecided) onDecided();
  } catch (e) {
    say('Could not ' + decision + ': ' + e.message);
    card.querySelectorAll('button').forEach(function (b) { b.disabled = false; });
  }
}
`;
