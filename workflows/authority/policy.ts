/**
 * Policy updates of a running chain or conversation (`tightenPolicy`): a team's approval policies
 * applied from the chain's next step on, only ever tighter. The validator refuses, for every
 * client, an update that is not well formed or that would loosen anything; an applied update is
 * on the record as its own event (`policy_updated`, with who applied it). Approvals already waiting
 * keep the policy they were asked under; calls not yet made meet the new one.
 */
import { condition, setHandler } from '@temporalio/workflow';
import { UnreadableArrival } from '../../src/common/arrival';
import { PolicyLoosenedError } from '../../src/common/authority/errors';
import {
  policyLoosenings,
  policyTightenings,
  policyUpdateProblems,
  type PolicyUpdatedRecord,
  type PolicyUpdateInput,
  type PolicyUpdateResult,
  teamPolicyOf,
} from '../../src/common/authority/policyUpdate';
import { InvalidRunInputError, toApplicationFailure } from '../../src/common/errors';
import { APPROVAL_EVENT_MEMO, policyQuery, tightenPolicyUpdate } from '../../src/common/messages';
import { Patches } from '../../src/common/patches';
import { versionIdOf } from '../../src/common/version';
import { arrival, rawArgs } from '../arrivals';
import type { Chain } from '../chain/state';
import type { ChainEffects } from '../chain/effects';
import { noteUpdate } from '../historyLimits';
import { hasPatch } from '../patches';

/** The largest policy update read: far beyond any team's approval policies. */
const POLICY_BYTES = 256 * 1024;
const POLICY = { field: 'tightenPolicy', bytes: POLICY_BYTES };

/** Where the handlers find the chain (once it has its team) and record what they apply. */
export interface PolicySource {
  chain(): Chain | undefined;
  effects: Pick<ChainEffects, 'publish' | 'now'>;
}

/** Register the `tightenPolicy` update and the `policy` query. */
export function receivePolicyUpdates(source: PolicySource): void {
  setHandler(policyQuery, () => {
    const chain = source.chain();
    return chain
      ? { ...teamPolicyOf(chain.state.team), runApprovals: chain.state.options.approvals }
      : { version: '', approvals: [], agents: {}, runApprovals: [] };
  });
  setHandler(
    rawArgs(tightenPolicyUpdate),
    async (raw) => {
      noteUpdate();
      const input = arrival(raw, POLICY) as PolicyUpdateInput;
      // An update that arrives before the chain took its team is judged once it has: nothing is lost.
      await condition(() => source.chain() !== undefined);
      if (!hasPatch(Patches.POLICY_UPDATES))
        throw toApplicationFailure(new InvalidRunInputError(['this run started on code without policy updates']));
      return apply(source, input);
    },
    { validator: (raw) => validate(source, arrival(raw, POLICY)) },
  );
}

function validate(source: PolicySource, input: unknown): void {
  if (input instanceof UnreadableArrival)
    throw toApplicationFailure(new InvalidRunInputError([input.problem('the policy update')]));
  const problems = policyUpdateProblems(input);
  if (problems.length > 0) throw toApplicationFailure(new InvalidRunInputError(problems));
  const chain = source.chain();
  if (!chain) return;
  const loosened = policyLoosenings(
    chain.state.team,
    chain.state.options.approvals,
    (input as PolicyUpdateInput).policy,
  );
  if (loosened.length > 0) throw toApplicationFailure(new PolicyLoosenedError(loosened));
}

function apply(source: PolicySource, input: PolicyUpdateInput): PolicyUpdateResult {
  const chain = source.chain()!;
  const { team, options } = chain.state;
  // Judged again: the chain may have moved on (or taken its team) since the validator ran.
  const loosened = policyLoosenings(team, options.approvals, input.policy);
  if (loosened.length > 0) throw toApplicationFailure(new PolicyLoosenedError(loosened));
  const from = team.policyVersion ?? versionIdOf(team);
  const tightened = policyTightenings(team, options.approvals, input.policy);
  if (tightened.length === 0) return { from, to: from, tightened };
  chain.apply({ type: 'policy_updated', policy: input.policy });
  const record: PolicyUpdatedRecord = {
    type: 'policy_updated',
    from,
    to: input.policy.version,
    tightened,
    appliedBy: input.appliedBy,
    ...(input.reason !== undefined ? { reason: input.reason } : {}),
    policy: input.policy,
    at: new Date(source.effects.now()).toISOString(),
  };
  source.effects.publish({ [APPROVAL_EVENT_MEMO]: record });
  return { from, to: input.policy.version, tightened };
}
