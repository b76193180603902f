/**
 * Records the passkey vectors the verifier's unit tests check (`vectors.json`): Chromium's virtual
 * authenticator (CDP `WebAuthn.addVirtualAuthenticator`) registers an ES256 and an EdDSA passkey at
 * http://localhost and answers `navigator.credentials.get` with a decision's digest as challenge.
 *
 *     npx tsx test/common/passkeys/record.ts
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { base64url } from '../../../src/common/signatures/canonical';
import { passkeyChallenge } from '../../../src/common/signatures/passkey';
import { decisionPayload, type DecisionFacts } from '../../../src/common/signatures/payload';
import { findChromium } from '../../helpers/chromium';

const FACTS: DecisionFacts = {
  workflowId: 'baton-desk-passkeys',
  approval: 'a-1',
  subject: { kind: 'handoff', from: 'desk', to: 'vault' },
  outcome: 'approve',
  approver: 'alice',
};

const ASSERT = `async (n, challenge) => {
  const b64 = (b) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  const from = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  const created = await navigator.credentials.create({ publicKey: { rp: { id: 'localhost', name: 'baton' }, user: { id: crypto.getRandomValues(new Uint8Array(16)), name: 'alice', displayName: 'alice' }, challenge: crypto.getRandomValues(new Uint8Array(32)), pubKeyCredParams: [{ type: 'public-key', alg: n }] } });
  const got = await navigator.credentials.get({ publicKey: { challenge: from(challenge), rpId: 'localhost', allowCredentials: [{ type: 'public-key', id: created.rawId }] } });
  const r = got.response;
  return { credentialId: b64(created.rawId), registrationData: b64(created.response.getAuthenticatorData()), authenticatorData: b64(r.authenticatorData), clientDataJSON: b64(r.clientDataJSON), signature: b64(r.signature) };
}`;

async function main(): Promise<void> {
  const server = http.createServer((_, res) => res.end('<!doctype html><title>passkeys</title>'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: findChromium()!,
    args: ['--headless', '--no-sandbox', '--host-resolver-rules=MAP localhost 127.0.0.1'],
  });
  const page = await browser.newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  await page.goto(`${origin}/`);
  const vectors = [];
  for (const [alg, n] of [
    ['ES256', -7],
    ['EdDSA', -8],
  ] as const) {
    const iat = Math.floor(Date.now() / 1000);
    const payload = decisionPayload(FACTS, iat);
    // A script, not a function: tsx names the functions it compiles with a helper the page lacks.
    const made = (await page.evaluate(
      `(${ASSERT})(${n}, ${JSON.stringify(base64url(passkeyChallenge(payload)))})`,
    )) as Record<string, string>;
    vectors.push({ alg, rpId: 'localhost', origin, facts: FACTS, iat, ...made });
  }
  const recordedWith = `Chromium ${browser.version()}, virtual authenticator (ctap2, internal)`;
  await browser.close();
  server.close();
  fs.writeFileSync(path.join(__dirname, 'vectors.json'), `${JSON.stringify({ recordedWith, vectors }, null, 2)}\n`);
}

void main();
