/**
 * Signing decisions in the browser: an approver's Ed25519 key, imported once from a JWK or
 * generated here, kept in this browser's IndexedDB as a WebCrypto key that cannot be exported
 * again; each decision the approver sends carries a JWS over exactly what it decides
 * (docs/signatures.md), made with it.
 */
import type { Approval } from './types';
import { h, messageOf, say } from './dom';
import { session } from './session';

/** The key this browser holds for an approver. */
export interface HeldKey {
  kid: string;
  key: CryptoKey;
  publicKey: string;
}

const KEYS_DB = 'baton-signing-keys';

function keyStore(mode: IDBTransactionMode): Promise<IDBObjectStore> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(KEYS_DB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore('keys');
    open.onsuccess = () => resolve(open.result.transaction('keys', mode).objectStore('keys'));
    open.onerror = () => reject(open.error);
  });
}

function stored<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** The key this browser holds for the signed-in approver, or null. */
export async function heldKey(): Promise<HeldKey | null> {
  const me = session.me;
  if (!me || !window.indexedDB || !window.crypto || !crypto.subtle) return null;
  try {
    return ((await stored((await keyStore('readonly')).get(me.name))) as HeldKey | undefined) || null;
  } catch {
    return null;
  }
}

async function holdKey(entry: HeldKey): Promise<void> {
  await stored((await keyStore('readwrite')).put(entry, session.me!.name));
}

async function forgetKey(): Promise<void> {
  await stored((await keyStore('readwrite')).delete(session.me!.name));
}

/** JSON with sorted keys and no undefined members: what the workflow hashes and checks. */
export function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`;
}

export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(text);
}

export function b64url(bytes: Uint8Array): string {
  let s = '';
  bytes.forEach((b) => {
    s += String.fromCharCode(b);
  });
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A key's RFC 7638 thumbprint: the key id when the JWK names none. */
async function thumbprint(x: string): Promise<string> {
  return b64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`))),
  );
}

/** The signature of a decision on approval `a`: what it decides, as the workflow checks it. */
export async function signDecision(
  entry: HeldKey,
  a: Approval,
  decision: string,
  note: string | undefined,
  edited: object | undefined,
): Promise<string> {
  const payload = await decisionPayload(a, decision, note, edited);
  const input = `${b64url(utf8(canonical({ alg: 'EdDSA', kid: entry.kid })))}.${b64url(utf8(canonical(payload)))}`;
  const signature = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, entry.key, utf8(input)));
  return `${input}.${b64url(signature)}`;
}

/** The `baton.decision/1` payload of a decision on approval `a` (docs/signatures.md). */
export async function decisionPayload(
  a: Approval,
  decision: string,
  note: string | undefined,
  edited: object | undefined,
): Promise<Record<string, unknown>> {
  const subject: Record<string, unknown> = a.tool
    ? { kind: 'tool_call', from: a.from, tool: a.tool.name, callHash: a.tool.callHash }
    : { kind: 'handoff', from: a.from, to: a.to };
  if (a.tool && edited) subject.arguments = await sha256Hex(canonical(edited));
  const payload: Record<string, unknown> = {
    v: 'baton.decision/1',
    workflowId: a.workflowId,
    approval: a.handoffId,
    subject,
    outcome: decision,
    approver: session.me!.name,
    iat: Math.floor(Date.now() / 1000),
  };
  if (note !== undefined) payload.note = await sha256Hex(note);
  return payload;
}

/** The entry a team lists for the held key. */
function approverKeyEntry(entry: HeldKey): string {
  return JSON.stringify({ kid: entry.kid, approvers: [session.me!.name], publicKey: entry.publicKey });
}

interface PrivateJwk {
  kty?: unknown;
  crv?: unknown;
  d?: unknown;
  x?: unknown;
  kid?: unknown;
}

/** The panel that shows, imports, makes and forgets the approver's signing key. */
export function keyPanel(): HTMLDetailsElement {
  const status = h('span', { class: 'key-status' });
  const problem = h('p', { class: 'problem', role: 'alert', hidden: true });
  const paste = h('textarea', {
    id: 'signing-jwk',
    class: 'args',
    rows: '3',
    spellcheck: 'false',
    placeholder: '{"kty":"OKP","crv":"Ed25519","d":"…","x":"…","kid":"…"}',
  });
  const entryBox = h('pre', { class: 'small key-entry', hidden: true });
  const panel = h('details', { class: 'signing' }, [
    h('summary', {}, ['Signing key: ', status]),
    h('p', {
      class: 'muted small',
      text: 'Decisions you send are signed in this browser with your key; the chain checks the signature against the keys its team trusts for you. The key stays in this browser and cannot be read back out.',
    }),
    h('label', { for: 'signing-jwk', text: 'Private key (JWK)' }),
    paste,
    problem,
    h('div', { class: 'actions' }, [
      h('button', { type: 'button', class: 'approve', text: 'Import key', onclick: () => run(importKey) }),
      h('button', { type: 'button', text: 'Generate a key', onclick: () => run(generateKey) }),
      h('button', { type: 'button', class: 'reject', text: 'Forget key', onclick: () => run(forgetKey) }),
    ]),
    entryBox,
  ]);
  async function refresh(): Promise<void> {
    const entry = await heldKey();
    status.textContent = entry
      ? `${entry.kid} (held in this browser)`
      : 'none: decisions are signed by the service, if it has a key';
    entryBox.hidden = !entry;
    if (entry) entryBox.textContent = `List it in the team: ${approverKeyEntry(entry)}`;
  }
  async function run(action: () => Promise<void>): Promise<void> {
    problem.hidden = true;
    try {
      await action();
    } catch (e) {
      problem.textContent = messageOf(e);
      problem.hidden = false;
    }
    await refresh();
  }
  async function importKey(): Promise<void> {
    let jwk: PrivateJwk | null;
    try {
      jwk = JSON.parse(paste.value) as PrivateJwk | null;
    } catch (e) {
      throw new Error(`The key is not JSON: ${messageOf(e)}`);
    }
    if (!jwk || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string')
      throw new Error('The key must be an Ed25519 private JWK: {"kty":"OKP","crv":"Ed25519","d":…,"x":…}');
    const key = await crypto.subtle.importKey(
      'jwk',
      { kty: 'OKP', crv: 'Ed25519', d: jwk.d, x: jwk.x },
      { name: 'Ed25519' },
      false,
      ['sign'],
    );
    await holdKey({ kid: typeof jwk.kid === 'string' ? jwk.kid : await thumbprint(jwk.x), key, publicKey: jwk.x });
    paste.value = '';
    say('Your key is held in this browser; decisions you send are signed with it.');
  }
  async function generateKey(): Promise<void> {
    const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])) as CryptoKeyPair;
    const x = b64url(new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey)));
    await holdKey({ kid: await thumbprint(x), key: pair.privateKey, publicKey: x });
    panel.open = true;
  }
  void refresh();
  return panel;
}
