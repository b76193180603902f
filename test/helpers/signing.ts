/**
 * The approvers' keys and the team the signature tests share: Ed25519 keys made from fixed seeds
 * (so recorded histories name the same keys every time), and a team whose tool call and handoff
 * need signed decisions.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { z } from 'zod';
import { defineTool, delegate, Team } from '../../src';
import { type ApproverKey, type DecisionSigner, decisionSigner } from '../../src/client/signing';
import { base64url } from '../../src/common/signatures/canonical';
import { scriptedAgent as agent } from './agents';

/** A test key: its private key (a KeyObject and a JWK), and its public half as raw base64url. */
export interface TestKey {
  kid: string;
  privateKey: KeyObject;
  jwk: { kty: 'OKP'; crv: 'Ed25519'; d: string; x: string; kid: string };
  publicKey: string;
  signer: DecisionSigner;
}

/** The key of `kid` made from a seed of 32 bytes of `seed`. */
export function testKey(kid: string, seed: number): TestKey {
  const d = new Uint8Array(32).fill(seed);
  const x = base64url(ed25519.getPublicKey(d));
  const jwk = { kty: 'OKP' as const, crv: 'Ed25519' as const, d: base64url(d), x, kid };
  const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
  return { kid, privateKey, jwk, publicKey: x, signer: decisionSigner(privateKey, { kid }) };
}

export const keys = {
  alice: testKey('alice-1', 1),
  /** Alice's key before she rotated it: retired long ago. */
  aliceOld: testKey('alice-0', 2),
  bob: testKey('bob-1', 3),
  carol: testKey('carol-1', 4),
  service: testKey('service-1', 5),
  /** Nobody's: a forger's. */
  mallory: testKey('mallory-1', 6),
  /** The key audit exports are signed with. */
  audit: testKey('audit-1', 7),
};

/** The export keys a reader of exports signed with `keys.audit` trusts. */
export const exportKeys = [{ kid: keys.audit.kid, publicKey: keys.audit.publicKey }];

/** The keys the team lists: alice's (current and retired), bob's, and the HTTP service's (for anyone). */
export const teamKeys: ApproverKey[] = [
  { kid: 'alice-1', approvers: ['alice'], publicKey: keys.alice.publicKey, notBefore: '2020-01-01T00:00:00Z' },
  { kid: 'alice-0', approvers: ['alice'], publicKey: keys.aliceOld.publicKey, notAfter: '2020-01-01T00:00:00Z' },
  { kid: 'bob-1', approvers: ['bob'], publicKey: keys.bob.publicKey },
  { kid: 'service-1', approvers: ['*'], publicKey: keys.service.publicKey, service: true },
];

/** Carol's key, which a run's options name. */
export const carolKey: ApproverKey = { kid: 'carol-1', approvers: ['carol'], publicKey: keys.carol.publicKey };

const hop = (to: string, message = `over to ${to}`) => ({ handoff: { to, message } });

const payout = defineTool({
  name: 'payout',
  description: 'Pay money out',
  parameters: z.object({ amount: z.number().positive(), to: z.string() }),
  needsApproval: { approvers: ['alice', 'bob'], requireSignature: true },
  execute: ({ amount, to }) => `paid ${amount} to ${to}`,
});

const stamp = defineTool({
  name: 'stamp',
  description: 'Stamp a form',
  parameters: z.object({ form: z.string() }),
  needsApproval: { approvers: ['bob'] },
  execute: ({ form }) => `stamped ${form}`,
});

/**
 * `desk` pays out (a signed decision by alice or bob), then hands off to `vault` (signed by alice);
 * `top` delegates to `leaf`, whose handoff to `safe` (carol decides) waits in the specialist;
 * `clerk` stamps a form (bob decides, unsigned allowed) and hands off to `safe`.
 */
export function signedTeam(): Team {
  return new Team(
    [
      agent(
        'desk',
        [{ toolCalls: [{ name: 'payout', arguments: { amount: 5, to: 'bob' } }] }, hop('vault', 'open the vault')],
        { tools: [payout], handoffs: ['vault'] },
      ),
      agent('vault', [{ text: 'vault opened' }], { approval: { approvers: ['alice'], requireSignature: true } }),
      agent(
        'top',
        [
          { toolCalls: [{ name: 'delegate', arguments: { to: 'leaf', task: 'open the safe', reason: 'leaf knows' } }] },
          { text: 'top done' },
        ],
        { handoffs: [delegate('leaf')] },
      ),
      agent('leaf', [hop('safe', 'open the safe')], { handoffs: ['safe'] }),
      agent('safe', [{ text: 'safe opened' }], { approval: { approvers: ['carol'] } }),
      agent('clerk', [{ toolCalls: [{ name: 'stamp', arguments: { form: 'A1' } }] }, hop('safe', 'stamped')], {
        tools: [stamp],
        handoffs: ['safe'],
      }),
    ],
    { name: 'signed', approverKeys: teamKeys },
  );
}
