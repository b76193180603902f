/**
 * Recorded chains of keys from outside the team's own list: `published-keys`, whose handoff alice
 * approves with a key an identity provider publishes (a JWKS served on loopback, recorded in the
 * chain's snapshot); and `operator-passkey-override`, loosened by an operator's passkey in a team
 * that requires one, after an Ed25519 operator signature and an assertion from another origin are
 * refused, and before the applied assertion, sent again, is refused.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Team } from '../../src';
import { overrideRunSignal } from '../../src/workflow';
import { signDecision, signOverrides } from '../../src/client/signing';
import { OPERATOR_SIGNATURE_VERSION, overridesDigest } from '../../src/common/signatures/operator';
import { scriptedAgent as agent } from '../helpers/agents';
import { passkeyAssert, passkeyEntry, seededPasskey } from '../helpers/passkeys';
import { testKey } from '../helpers/signing';
import { nextApproval } from './auditScenarios';
import type { Scenario } from './scenarios';

const idpAlice = testKey('idp-alice-1', 51);
const jwks = { url: '' };

function vaultTeam(options: ConstructorParameters<typeof Team>[1]): Team {
  return new Team(
    [
      agent('desk', [{ handoff: { to: 'vault', message: 'open the vault' } }], { handoffs: ['vault'] }),
      agent('vault', [{ text: 'vault opened' }], { approval: { approvers: ['alice'], requireSignature: true } }),
    ],
    { name: 'vault', version: 'v1', ...options },
  );
}

export const publishedKeysScenario: Scenario = {
  name: 'published-keys',
  withWorkflowId: true,
  prepare: async () => {
    const server = http.createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', kid: idpAlice.kid, x: idpAlice.publicKey }] })),
    );
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    jwks.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    return () => new Promise<void>((ok) => server.close(() => ok()));
  },
  team: () => vaultTeam({ jwks: [{ url: jwks.url, approvers: { [idpAlice.kid]: ['alice'] } }] }),
  drive: async (b) => {
    const run = await b.start('desk', 'open it');
    const waiting = await nextApproval(run);
    const decision = { approver: 'alice', decision: 'approve' as const };
    await b.approve(run.workflowId, waiting.handoffId, {
      ...decision,
      signature: await signDecision(idpAlice.signer, { workflowId: run.workflowId, waiting, decision }),
    });
    await run.result();
    return run.workflowId;
  },
};

const AT = { rpId: 'ops.example.com', origin: 'https://ops.example.com' };
const opsPasskey = seededPasskey('ops-passkey', 52);
const ops = testKey('ops-1', 53);

export const operatorPasskeyScenario: Scenario = {
  name: 'operator-passkey-override',
  withWorkflowId: true,
  team: () =>
    vaultTeam({
      approverKeys: [{ kid: 'alice-1', approvers: ['alice'], publicKey: testKey('alice-1', 1).publicKey }],
      operatorKeys: [
        passkeyEntry(opsPasskey, ['ops'], AT.rpId, [AT.origin]),
        { kid: ops.kid, approvers: ['ops'], publicKey: ops.publicKey },
      ],
      requireOperatorPasskey: true,
    }),
  drive: async (b) => {
    const run = await b.start('desk', 'open it', { maxHandoffs: 3 });
    const waiting = await nextApproval(run);
    const loosen = { options: { maxHandoffs: 9 } };
    const payload = {
      v: OPERATOR_SIGNATURE_VERSION,
      workflowId: run.workflowId,
      operator: 'ops',
      overrides: overridesDigest(loosen),
      iat: Math.floor(Date.now() / 1000),
    };
    const records = async (n: number) => {
      for (let i = 0; i < 200; i++) {
        const found = (await b.audit(run.workflowId)).events.filter(
          (e) => e.kind === 'overrides_refused' || e.kind === 'overrides_applied',
        );
        if (found.length >= n) return found;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`operator-passkey-override: fewer than ${n} override records`);
    };
    // One at a time: refusals that arrive together are recorded as one.
    const send = async (o: unknown, n: number) => {
      await run.handle.signal(overrideRunSignal, o as never);
      return (await records(n)).at(-1)!.kind;
    };
    const signature = passkeyAssert(opsPasskey, payload, AT);
    const kinds = [
      await send(
        await signOverrides(ops.signer, { workflowId: run.workflowId, operator: 'ops', overrides: loosen }),
        1,
      ),
      await send(
        {
          ...loosen,
          operator: 'ops',
          signature: passkeyAssert(opsPasskey, payload, { ...AT, origin: 'https://evil.example.com' }),
        },
        2,
      ),
      await send({ ...loosen, operator: 'ops', signature }, 3),
      await send({ ...loosen, operator: 'ops', signature }, 4),
    ].join(', ');
    if (kinds !== 'overrides_refused, overrides_refused, overrides_applied, overrides_refused')
      throw new Error(`operator-passkey-override recorded ${kinds}`);
    const decision = { approver: 'alice', decision: 'approve' as const };
    await b.approve(run.workflowId, waiting.handoffId, {
      ...decision,
      signature: await signDecision(testKey('alice-1', 1).signer, { workflowId: run.workflowId, waiting, decision }),
    });
    await run.result();
    return run.workflowId;
  },
};
