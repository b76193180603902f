/**
 * Decisions signed with a passkey act only in runs that took the `baton-passkeys` patch: a run
 * replaying a history from before refuses them, as its code did.
 */
import { SignatureRefusedError } from '../../src/common/errors';
import { Patches } from '../../src/common/patches';
import type { Judgement } from './decisions';
import type { ChainEffects } from './effects';

/** `judged`, or its refusal when it applies a passkey-signed decision in a run without the patch. */
export function passkeysIn(judged: Judgement, effects: Pick<ChainEffects, 'patched'>): Judgement {
  if (judged.kind !== 'apply' || !judged.identity?.passkey || effects.patched(Patches.PASSKEYS)) return judged;
  const reason =
    'this chain started before baton verified passkeys: sign the decision with an Ed25519 key, or send it through the HTTP service';
  const error = new SignatureRefusedError(judged.decision.handoffId, reason, 'malformed');
  return { kind: 'refused', reason, error };
}
