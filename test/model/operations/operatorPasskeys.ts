/**
 * Operators' overrides signed with a passkey (a WebAuthn assertion over the operator payload's
 * digest, by the team's operator passkey): a valid one must loosen the chain, with the passkey's
 * origin and counter on the record; one asked for by another origin, and the same assertion sent
 * again, must be refused and loosen nothing (invariants `operator-passkey`, `no-unsigned-loosening`).
 */
import fc from 'fast-check';
import { overrideRunSignal, type RunOverrides } from '../../../src/workflow';
import { OPERATOR_SIGNATURE_VERSION, overridesDigest } from '../../../src/common/signatures/operator';
import { passkeyAssert } from '../../helpers/passkeys';
import { broken, clip, operation } from '../harness';
import { pick } from '../model';
import { OPS_PASSKEY, OPS_PASSKEY_AT } from '../team';
import { countOf, open, overrideRecords } from './authority';
import { perSystem } from '../systemState';

/** The last operator passkey override that applied, by chain: what `replayed` sends again. */
const applied = perSystem(new Map<string, RunOverrides>());

export const operatorPasskeyOperations = [
  operation({
    name: 'operator_passkey_override',
    group: 'approvals',
    weight: 1,
    params: fc.record({ chain: fc.nat(), kind: fc.constantFrom('valid', 'valid', 'wrong_origin', 'replayed') }),
    applies: (m) => open(m).length > 0,
    async run(h, p) {
      const root = pick(open(h.model), p.chain)!;
      const overrides = { options: { maxHandoffs: 1 + (root.options.maxHandoffs ?? 10) } };
      const payload = {
        v: OPERATOR_SIGNATURE_VERSION,
        workflowId: root.id,
        operator: 'ops',
        overrides: overridesDigest(overrides),
        iat: Math.floor(Date.now() / 1000),
      };
      const origin = p.kind === 'wrong_origin' ? 'https://console.evil.example' : OPS_PASSKEY_AT.origin;
      const sent =
        p.kind === 'replayed'
          ? applied.get(root.id)
          : {
              ...overrides,
              operator: 'ops',
              signature: passkeyAssert(OPS_PASSKEY, payload, { rpId: OPS_PASSKEY_AT.rpId, origin }),
            };
      if (!sent) return;
      const before = await countOf(h, root.id);
      await h.system.client.workflow.getHandle(root.id).signal(overrideRunSignal, sent);
      const last = (await overrideRecords(h, root.id, before))?.at(-1);
      if (!last) return;
      if (p.kind !== 'valid') {
        if (last.kind === 'overrides_applied')
          broken(
            h,
            'no-unsigned-loosening',
            `a ${p.kind} operator passkey override of ${root.id} applied: ${clip(last)}`,
          );
        return;
      }
      if (last.kind !== 'overrides_applied')
        return broken(
          h,
          'operator-passkey',
          `the operator's passkey override of ${root.id} was refused: ${clip(last)}`,
        );
      const identity = (last as { identity?: { kid?: string; passkey?: { origin: string; signCount: number } } })
        .identity;
      if (
        identity?.kid !== OPS_PASSKEY.kid ||
        identity.passkey?.origin !== origin ||
        identity.passkey.signCount !== OPS_PASSKEY.signCount
      )
        broken(h, 'operator-passkey', `${root.id}: the operator's passkey override is recorded as ${clip(identity)}`);
      root.options = { ...root.options, ...overrides.options };
      applied.set(root.id, sent);
    },
  }),
];
