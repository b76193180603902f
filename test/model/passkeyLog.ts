/**
 * The harness's passkeys and what it did with them: alice's and bob's passkeys as the approvals page
 * registers them (`approverKeys` with `webauthn`), and, by root, the passkey decisions the workflow
 * took, the assertions made to be refused and the last counter taken, which the passkey operations
 * write and the passkey invariants read.
 */
import type { RootModel } from './model';
import { nodePasskey, passkeyEntry } from '../helpers/passkeys';
import { perSystem } from './systemState';

/** Where the passkeys were registered: the relying party and the approvals page's origin. */
export const AT = { rpId: 'approvals.example.com', origin: 'https://approvals.example.com' };
/** Alice's passkey. */
export const ALICE = nodePasskey('alice-passkey', 'P-256');
/** Bob's passkey, which signs for bob only. */
export const BOB = nodePasskey('bob-passkey', 'Ed25519');
/** The `approverKeys` of a chain that trusts both passkeys. */
export const APPROVER_KEYS = [
  passkeyEntry(ALICE, ['alice'], AT.rpId, [AT.origin]),
  passkeyEntry(BOB, ['bob'], AT.rpId, [AT.origin]),
];

/** What the harness did with passkeys, by root: decisions taken (approval → signature), assertions refused, the last counter taken. */
export interface PasskeyLog {
  taken: Map<string, string>;
  refused: Set<string>;
  lastCount?: number;
}
/** Each root's {@link PasskeyLog}. */
export const logs = perSystem(new Map<string, PasskeyLog>());
/** The {@link PasskeyLog} of root `id`, begun empty. */
export const logOf = (id: string): PasskeyLog =>
  logs.get(id) ?? logs.set(id, { taken: new Map(), refused: new Set() }).get(id)!;

/** Whether a root trusts the harness's passkeys. */
export const trustsPasskeys = (r: RootModel) => r.options.approverKeys?.some((k) => k.kid === ALICE.kid) === true;
