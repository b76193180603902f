/**
 * Keys an identity provider publishes, on a real server with a real worker: a team names a JWKS
 * URL (served here by a node:http server), the worker resolves it into each new chain's snapshot,
 * a decision signed with a key of the set is acted on, a rotated set reaches new chains without a
 * restart (the old key refused there, still trusted by the chain that recorded it), a set the worker
 * cannot fetch again leaves new chains on the last good copy with the failure recorded, and a set
 * that cannot be fetched, is not JSON or holds a key that does not validate stops the worker's start
 * with a `KeySetError` naming the URL and the problem.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeySetError, Team, type BatonRun } from '../../src';
import { signDecision } from '../../src/client/signing';
import { teamSnapshot } from '../../src/client/sensitive';
import { toBatonError } from '../../src/client';
import { decideHandoffUpdate, SignatureRefusedError } from '../../src/workflow';
import { nextApproval } from '../histories/auditScenarios';
import { scriptedAgent as agent } from '../helpers/agents';
import { testKey } from '../helpers/signing';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();
const idp = { first: testKey('idp-alice-1', 21), second: testKey('idp-alice-2', 22) };
const publicJwk = (k: typeof idp.first) => ({
  kty: 'OKP',
  crv: 'Ed25519',
  x: k.publicKey,
  kid: k.kid,
  use: 'sig',
  alg: 'EdDSA',
});
// An identity provider's token key beside them, which the team does not map: left alone.
const rsa = { kty: 'RSA', kid: 'token-rsa', n: 'sXch', e: 'AQAB', use: 'sig' };

/** What the JWKS server answers, by path: a status and a body the test changes as it goes. */
const served = new Map<string, { status: number; body: string }>();
const jwks = http.createServer((req, res) => {
  const answer = served.get(req.url ?? '') ?? { status: 404, body: 'not found' };
  res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((ok) => jwks.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => jwks.close(() => ok())));

const serve = (path: string, body: unknown, status = 200) =>
  served.set(path, { status, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** `desk` hands off to `vault`, which only alice opens, with a signed decision; alice's keys come from the JWKS at `path`. */
function idpTeam(
  path: string,
  approvers: Record<string, string[]> = { 'idp-alice-1': ['alice'], 'idp-alice-2': ['alice'] },
): Team {
  return new Team(
    [
      agent('desk', [{ handoff: { to: 'vault', message: 'open the vault' } }], { handoffs: ['vault'] }),
      agent('vault', [{ text: 'vault opened' }], { approval: { approvers: ['alice'], requireSignature: true } }),
    ],
    { name: 'idp', jwks: [{ url: `${base}${path}`, approvers, refreshSeconds: 1 }] },
  );
}

/** Alice's decision on the run's waiting handoff, signed with `key`: the update's answer, or its refusal. */
async function decide(run: BatonRun, key: typeof idp.first): Promise<unknown> {
  const waiting = await nextApproval(run);
  const decision = { approver: 'alice', decision: 'approve' as const };
  const signature = await signDecision(key.signer, { workflowId: run.workflowId, waiting, decision });
  return run.handle
    .executeUpdate(decideHandoffUpdate, { args: [{ handoffId: waiting.handoffId, ...decision, signature }] })
    .then(
      (ok) => ok,
      (e: unknown) => toBatonError(e),
    );
}

/** The team snapshot the run recorded, once its chain waits for the handoff's approval. */
async function snapshotOf(run: BatonRun) {
  await nextApproval(run);
  return (await teamSnapshot(server.env.client, run.workflowId, (await run.handle.describe()).runId))!;
}
// The worker's copies age by the wall clock (createWorker takes no clock), so a refresh waits out refreshSeconds (1 s).
const afterRefresh = () => new Promise((r) => setTimeout(r, 1_100));

describe('keys an identity provider publishes', () => {
  it('are recorded with each new chain, act for their approvers, and rotate without a restart', async () => {
    serve('/rotating', { keys: [rsa, publicJwk(idp.first)] });
    await withWorker(server.env, idpTeam('/rotating'), async (baton) => {
      const first = await baton.start('desk', 'open it');
      const early = await baton.start('desk', 'open it too');
      const snapshot = await snapshotOf(first);
      expect(snapshot.keySets).toEqual([
        {
          url: `${base}/rotating`,
          fetchedAt: expect.any(String),
          keys: [{ kid: 'idp-alice-1', approvers: ['alice'], publicKey: idp.first.publicKey }],
        },
      ]);
      expect(await decide(first, idp.first)).toMatchObject({
        outcome: 'approved',
        identity: { method: 'signed', kid: 'idp-alice-1', keySource: 'team' },
      });
      expect(await first.result()).toMatchObject({ output: 'vault opened' });

      // The identity provider rotates: new chains trust the new key only; a chain that recorded the old one keeps it.
      serve('/rotating', { keys: [publicJwk(idp.second), rsa] });
      await afterRefresh();
      const rotated = await baton.start('desk', 'open it again');
      expect((await snapshotOf(rotated)).keySets?.[0]?.keys.map((k) => k.kid)).toEqual(['idp-alice-2']);
      const refused = await decide(rotated, idp.first);
      expect(refused).toBeInstanceOf(SignatureRefusedError);
      expect(refused).toMatchObject({
        problem: 'unknown_key',
        reason: expect.stringContaining('no key "idp-alice-1" is trusted by this chain (trusted: idp-alice-2'),
      });
      expect(await decide(rotated, idp.second)).toMatchObject({
        outcome: 'approved',
        identity: { kid: 'idp-alice-2' },
      });
      expect(await rotated.result()).toMatchObject({ output: 'vault opened' });
      expect(await decide(early, idp.first)).toMatchObject({ outcome: 'approved', identity: { kid: 'idp-alice-1' } });

      // The set cannot be fetched again: new chains start on the last good copy, the failure on their record.
      serve('/rotating', 'down for maintenance', 503);
      await afterRefresh();
      const during = await baton.start('desk', 'open it during the outage');
      expect((await snapshotOf(during)).keySets?.[0]).toMatchObject({
        keys: [{ kid: 'idp-alice-2' }],
        error: expect.stringContaining('answered HTTP 503'),
      });
      expect(await decide(during, idp.second)).toMatchObject({ outcome: 'approved' });
      expect(await during.result()).toMatchObject({ output: 'vault opened' });
    });
  });

  it('stop the worker from starting, naming the URL and the problem, when the set cannot be used', async () => {
    serve('/not-json', '<html>sign in</html>');
    serve('/bad-key', { keys: [{ ...publicJwk(idp.first), x: 'AAAA' }] });
    serve('/private', { keys: [{ ...idp.first.jwk, use: 'sig' }] });
    serve('/p256', {
      keys: [
        {
          kty: 'EC',
          crv: 'P-256',
          kid: 'idp-alice-1',
          x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
          y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
        },
      ],
    });
    const closed = http.createServer();
    await new Promise<void>((ok) => closed.listen(0, '127.0.0.1', ok));
    const gone = `/gone`;
    const unreachable = `http://127.0.0.1:${(closed.address() as AddressInfo).port}${gone}`;
    await new Promise<void>((ok) => closed.close(() => ok()));
    const cases: [Team, string, RegExp][] = [
      [
        new Team(idpTeam('/x').agents, { jwks: [{ url: unreachable, approvers: { 'idp-alice-1': ['alice'] } }] }),
        unreachable,
        /could not be fetched/,
      ],
      [idpTeam('/missing'), `${base}/missing`, /answered HTTP 404 instead of 200/],
      [idpTeam('/not-json'), `${base}/not-json`, /is not JSON/],
      [
        idpTeam('/bad-key'),
        `${base}/bad-key`,
        /has key "idp-alice-1" that does not validate: "x" must be a valid Ed25519 public key/,
      ],
      [idpTeam('/private'), `${base}/private`, /publishes private key material/],
      [idpTeam('/p256'), `${base}/p256`, /it is "EC" "P-256"; accepted: OKP Ed25519 \(a set without "webauthn"/],
    ];
    for (const [team, url, problem] of cases) {
      const err = await withWorker(server.env, team, () => Promise.resolve('started')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KeySetError);
      expect(err).toMatchObject({
        url,
        problem: expect.stringMatching(problem),
        message: expect.stringContaining(url),
      });
    }
  });

  it('are refused when the team names a key id both inline and in a set', () => {
    const build = () =>
      new Team(idpTeam('/x').agents, {
        approverKeys: [{ kid: 'idp-alice-1', approvers: ['alice'], publicKey: idp.first.publicKey }],
        jwks: [{ url: `${base}/x`, approvers: { 'idp-alice-1': ['alice'] } }],
      });
    expect(build).toThrow(/"jwks\[0\]\.approvers" names the key id "idp-alice-1", which approverKeys names too/);
    expect(
      () =>
        new Team(idpTeam('/x').agents, { jwks: [{ url: 'http://idp.example.com/jwks', approvers: { k: ['alice'] } }] }),
    ).toThrow(/"jwks\[0\]\.url" must be an https:\/\/ URL/);
  });
});
