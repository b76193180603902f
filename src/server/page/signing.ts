/**
 * Signing decisions in the browser (plain browser JavaScript, part of the page script): an
 * approver's Ed25519 key, imported once from a JWK or generated here, kept in this browser's
 * IndexedDB as a WebCrypto key that cannot be exported again; each decision the approver sends
 * carries a JWS over exactly what it decides (docs/signatures.md), made with it.
 */
export const SIGNING_SCRIPT = String.raw`var KEYS_DB = 'baton-signing-keys';
function keyStore(mode) {
  return new Promise(function (resolve, reject) {
    var open = indexedDB.open(KEYS_DB, 1);
    open.onupgradeneeded = function () { open.result.createObjectStore('keys'); };
    open.onsuccess = function () { resolve(open.result.transaction('keys', mode).objectStore('keys')); };
    open.onerror = function () { reject(open.error); };
  });
}
function stored(request) {
  return new Promise(function (resolve, reject) { request.onsuccess = function () { resolve(request.result); }; request.onerror = function () { reject(request.error); }; });
}
/** The key this browser holds for the signed-in approver: {kid, key (a CryptoKey), publicKey}, or null. */
async function heldKey() {
  if (!me || !window.indexedDB || !window.crypto || !crypto.subtle) return null;
  try { return (await stored((await keyStore('readonly')).get(me.name))) || null; } catch (e) { return null; }
}
async function holdKey(entry) { await stored((await keyStore('readwrite')).put(entry, me.name)); }
async function forgetKey() { await stored((await keyStore('readwrite')).delete(me.name)); }

function canonical(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  return '{' + Object.keys(v).filter(function (k) { return v[k] !== undefined; }).sort().map(function (k) { return JSON.stringify(k) + ':' + canonical(v[k]); }).join(',') + '}';
}
function utf8(text) { return new TextEncoder().encode(text); }
function b64url(bytes) {
  var s = '';
  bytes.forEach(function (b) { s += String.fromCharCode(b); });
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
async function sha256Hex(text) {
  var digest = new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(text)));
  return Array.prototype.map.call(digest, function (b) { return b.toString(16).padStart(2, '0'); }).join('');
}
/** A key's RFC 7638 thumbprint: the key id when the JWK names none. */
async function thumbprint(x) {
  return b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', utf8('{"crv":"Ed25519","kty":"OKP","x":"' + x + '"}'))));
}

/** The signature of a decision on approval a: what it decides, as the workflow checks it. */
async function signDecision(entry, a, decision, note, edited) {
  var subject = a.tool ? { kind: 'tool_call', from: a.from, tool: a.tool.name, callHash: a.tool.callHash } : { kind: 'handoff', from: a.from, to: a.to };
  if (a.tool && edited) subject.arguments = await sha256Hex(canonical(edited));
  var payload = { v: 'baton.decision/1', workflowId: a.workflowId, approval: a.handoffId, subject: subject, outcome: decision, approver: me.name, iat: Math.floor(Date.now() / 1000) };
  if (note !== undefined) payload.note = await sha256Hex(note);
  var input = b64url(utf8(canonical({ alg: 'EdDSA', kid: entry.kid }))) + '.' + b64url(utf8(canonical(payload)));
  var signature = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, entry.key, utf8(input)));
  return input + '.' + b64url(signature);
}

/** The entry a team lists for the held key. */
function approverKeyEntry(entry) { return JSON.stringify({ kid: entry.kid, approvers: [me.name], publicKey: entry.publicKey }); }

/** The panel that shows, imports, makes and forgets the approver's signing key. */
function keyPanel() {
  var status = h('span', { class: 'key-status' });
  var problem = h('p', { class: 'problem', role: 'alert', hidden: true });
  var paste = h('textarea', { id: 'signing-jwk', class: 'args', rows: '3', spellcheck: 'false', placeholder: '{"kty":"OKP","crv":"Ed25519","d":"…","x":"…","kid":"…"}' });
  var entryBox = h('pre', { class: 'small key-entry', hidden: true });
  var panel = h('details', { class: 'signing' }, [
    h('summary', {}, ['Signing key: ', status]),
    h('p', { class: 'muted small', text: 'Decisions you send are signed in this browser with your key; the chain checks the signature against the keys its team trusts for you. The key stays in this browser and cannot be read back out.' }),
    h('label', { for: 'signing-jwk', text: 'Private key (JWK)' }),
    paste,
    problem,
    h('div', { class: 'actions' }, [
      h('button', { type: 'button', class: 'approve', text: 'Import key', onclick: function () { run(importKey); } }),
      h('button', { type: 'button', text: 'Generate a key', onclick: function () { run(generateKey); } }),
      h('button', { type: 'button', class: 'reject', text: 'Forget key', onclick: function () { run(forgetKey); } }),
    ]),
    entryBox,
  ]);
  async function refresh() {
    var entry = await heldKey();
    status.textContent = entry ? entry.kid + ' (held in this browser)' : 'none: decisions are signed by the service, if it has a key';
    entryBox.hidden = !entry;
    if (entry) entryBox.textContent = 'List it in the team: ' + approverKeyEntry(entry);
  }
  async function run(action) {
    problem.hidden = true;
    try { await action(); } catch (e) { problem.textContent = e.message; problem.hidden = false; }
    await refresh();
  }
  async function importKey() {
    var jwk;
    try { jwk = JSON.parse(paste.value); } catch (e) { throw new Error('The key is not JSON: ' + e.message); }
    if (!jwk || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string') throw new Error('The key must be an Ed25519 private JWK: {"kty":"OKP","crv":"Ed25519","d":…,"x":…}');
    var key = await crypto.subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', d: jwk.d, x: jwk.x }, { name: 'Ed25519' }, false, ['sign']);
    await holdKey({ kid: typeof jwk.kid === 'string' ? jwk.kid : await thumbprint(jwk.x), key: key, publicKey: jwk.x });
    paste.value = '';
    say('Your key is held in this browser; decisions you send are signed with it.');
  }
  async function generateKey() {
    var pair = await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
    var x = b64url(new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey)));
    await holdKey({ kid: await thumbprint(x), key: pair.privateKey, publicKey: x });
    panel.open = true;
  }
  refresh();
  return panel;
}
`;
