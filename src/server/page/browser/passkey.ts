/**
 * Signing decisions with a passkey: an approver without an Ed25519 key in this browser signs each
 * decision with a WebAuthn assertion (`navigator.credentials.get`) whose challenge is the decision's
 * digest, SHA-256 of its `baton.decision/1` payload (docs/signatures.md); and registers a passkey
 * here, which shows the entry the team lists for it.
 */
import type { Approval } from './types';
import { h, messageOf, say } from './dom';
import { session } from './session';
import { b64url, canonical, decisionPayload, utf8 } from './signing';

/** The passkey this browser registered for an approver: its key id and credential id (base64url). */
interface HeldPasskey {
  kid: string;
  credentialId: string;
}

const stored = () => (session.me ? `baton-passkey:${session.me.name}` : null);

function heldPasskey(): HeldPasskey | null {
  const at = stored();
  try {
    return at ? (JSON.parse(localStorage.getItem(at) ?? 'null') as HeldPasskey | null) : null;
  } catch {
    return null;
  }
}

function fromB64url(s: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
}

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}

/**
 * A decision on approval `a` signed with the approver's passkey, when this browser registered one;
 * `null` when it has none (or no WebAuthn). Throws when the person cancels or the authenticator fails.
 */
export async function passkeySignature(
  a: Approval,
  decision: string,
  note: string | undefined,
  edited: object | undefined,
): Promise<{ kid: string; signature: string } | null> {
  const held = heldPasskey();
  if (!held || !window.PublicKeyCredential) return null;
  const payload = utf8(canonical(await decisionPayload(a, decision, note, edited)));
  const credential = (await navigator.credentials.get({
    publicKey: {
      challenge: await sha256(payload as Uint8Array<ArrayBuffer>),
      rpId: location.hostname,
      allowCredentials: [{ type: 'public-key', id: fromB64url(held.credentialId) }],
      userVerification: 'preferred',
      timeout: 120_000,
    },
  })) as PublicKeyCredential | null;
  if (!credential) throw new Error('The passkey gave no assertion');
  const r = credential.response as AuthenticatorAssertionResponse;
  const parts = [
    utf8(canonical({ alg: 'WebAuthn', kid: held.kid })),
    payload,
    new Uint8Array(r.authenticatorData),
    new Uint8Array(r.clientDataJSON),
    new Uint8Array(r.signature),
  ];
  return { kid: held.kid, signature: parts.map(b64url).join('.') };
}

/** The COSE_Key of a registered credential, from its SubjectPublicKeyInfo: ES256 (P-256) or EdDSA (Ed25519). */
function coseOf(spki: Uint8Array, alg: number): Uint8Array {
  const bstr = (b: Uint8Array) => [0x58, 32, ...b];
  if (alg === -7)
    return Uint8Array.from([
      0xa5,
      0x01,
      0x02,
      0x03,
      0x26,
      0x20,
      0x01,
      0x21,
      ...bstr(spki.slice(-64, -32)),
      0x22,
      ...bstr(spki.slice(-32)),
    ]);
  if (alg === -8) return Uint8Array.from([0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, ...bstr(spki.slice(-32))]);
  throw new Error(`The authenticator made a key of COSE algorithm ${alg}; baton takes ES256 (-7) and EdDSA (-8)`);
}

/** The panel that registers, shows and forgets the approver's passkey. */
export function passkeyPanel(): HTMLDetailsElement {
  const status = h('span', { class: 'passkey-status' });
  const problem = h('p', { class: 'problem', role: 'alert', hidden: true });
  const entryBox = h('pre', { class: 'small passkey-entry', hidden: true });
  const panel = h('details', { class: 'passkey' }, [
    h('summary', {}, ['Passkey: ', status]),
    h('p', {
      class: 'muted small',
      text: 'Without a signing key in this browser, decisions you send are signed with your passkey: the chain checks its assertion against the passkeys its team lists for you.',
    }),
    problem,
    h('div', { class: 'actions' }, [
      h('button', { type: 'button', class: 'approve', text: 'Register a passkey', onclick: () => void run(register) }),
      h('button', { type: 'button', class: 'reject', text: 'Forget passkey', onclick: () => void run(forget) }),
    ]),
    entryBox,
  ]);
  function refresh(): void {
    const held = heldPasskey();
    status.textContent = held ? `${held.kid} (registered in this browser)` : 'none';
    entryBox.hidden = !held || !entryBox.textContent;
  }
  async function run(action: () => Promise<void>): Promise<void> {
    problem.hidden = true;
    try {
      await action();
    } catch (e) {
      problem.textContent = messageOf(e);
      problem.hidden = false;
    }
    refresh();
  }
  async function register(): Promise<void> {
    const me = session.me!;
    if (!window.PublicKeyCredential)
      throw new Error('This browser has no passkeys (WebAuthn); it needs https or localhost');
    const made = (await navigator.credentials.create({
      publicKey: {
        rp: { id: location.hostname, name: 'baton approvals' },
        user: { id: crypto.getRandomValues(new Uint8Array(16)), name: me.name, displayName: me.name },
        challenge: crypto.getRandomValues(new Uint8Array(32)),
        pubKeyCredParams: [
          { type: 'public-key', alg: -7 },
          { type: 'public-key', alg: -8 },
        ],
        authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
        attestation: 'none',
      },
    })) as PublicKeyCredential | null;
    if (!made) throw new Error('The authenticator made no passkey');
    const response = made.response as AuthenticatorAttestationResponse;
    const spki = response.getPublicKey();
    if (!spki) throw new Error("The browser does not show the passkey's public key");
    const credentialId = b64url(new Uint8Array(made.rawId));
    const kid = credentialId.length <= 128 ? credentialId : b64url(await sha256(new Uint8Array(made.rawId)));
    localStorage.setItem(stored()!, JSON.stringify({ kid, credentialId } satisfies HeldPasskey));
    const entry = {
      kid,
      approvers: [me.name],
      publicKey: b64url(coseOf(new Uint8Array(spki), response.getPublicKeyAlgorithm())),
      webauthn: { rpId: location.hostname, origins: [location.origin] },
    };
    entryBox.textContent = `List it in the team's approverKeys: ${JSON.stringify(entry)}`;
    panel.open = true;
    say('Your passkey is registered; list its entry in the team for decisions signed with it to count.');
  }
  async function forget(): Promise<void> {
    const at = stored();
    if (at) localStorage.removeItem(at);
    entryBox.textContent = '';
    await Promise.resolve();
  }
  refresh();
  return panel;
}
