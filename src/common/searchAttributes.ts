/**
 * The search attributes baton writes, by which visibility lists chains: their keys and types, and
 * which ones a namespace needs. Re-exported by `messages.ts` with every contract name; kept apart
 * so the modules below the messages (tenants) name them without importing every message.
 *
 * Workflow-safe: no I/O.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attribute: the agent currently working. */
export const BatonAgent = defineSearchAttributeKey('BatonAgent', SearchAttributeType.KEYWORD);

/** Search attribute: running / awaiting_approval / completed / failed. */
export const BatonStatusAttribute = defineSearchAttributeKey('BatonStatus', SearchAttributeType.KEYWORD);

/** Search attribute: handoffs so far. */
export const BatonHandoffs = defineSearchAttributeKey('BatonHandoffs', SearchAttributeType.INT);

/**
 * Search attribute: the chain's team version, `support@2026-11-24` (see `TeamVersion.id`), so
 * `BatonTeam="support@2026-11-24"` lists what runs on a version. Optional: a worker writes it only
 * when it finds it registered in its namespace when it starts, so a namespace without it never
 * fails a chain.
 */
export const BatonTeam = defineSearchAttributeKey('BatonTeam', SearchAttributeType.KEYWORD);

/**
 * Search attribute: the experiment and variant a chain or conversation was given,
 * `<experiment>:<variant>`, so `BatonVariant="pricing:b"` lists a variant's chains. Set when a
 * chain starts in an experiment; the namespace must have it for experiments.
 */
export const BatonVariant = defineSearchAttributeKey('BatonVariant', SearchAttributeType.KEYWORD);

/**
 * Search attribute: the tenant a chain or conversation belongs to (the run option `tenant`), so
 * `BatonTenant="acme"` lists a tenant's chains. Set when a chain of a tenant starts; the namespace
 * must have it for tenants' chains.
 */
export const BatonTenant = defineSearchAttributeKey('BatonTenant', SearchAttributeType.KEYWORD);

/**
 * Search attribute: when the soonest of the chain's waiting approvals is due (its `expiresAt`);
 * unset when none waits or none has a deadline. Like the three below it is written only where the
 * namespace has them all (a worker asks when it starts), so the inbox lists from visibility alone.
 */
export const BatonApprovalDue = defineSearchAttributeKey('BatonApprovalDue', SearchAttributeType.DATETIME);

/** Search attribute: who may decide what waits in the chain: every approver named, `*` when anyone may decide one. */
export const BatonApprovers = defineSearchAttributeKey('BatonApprovers', SearchAttributeType.KEYWORD_LIST);

/** Search attribute: the tools whose calls wait for approval in the chain. */
export const BatonApprovalTools = defineSearchAttributeKey('BatonApprovalTools', SearchAttributeType.KEYWORD_LIST);

/** Search attribute: how many approvals wait in the chain (its own, not its specialists'). */
export const BatonPendingApprovals = defineSearchAttributeKey('BatonPendingApprovals', SearchAttributeType.INT);

/** The `BatonApprovers` value of an approval anyone with the right to decide may decide (its policy names no approvers). */
export const ANY_APPROVER = '*';

/** The approval search attributes, which the inbox reads; optional, like `BatonTeam`. */
export const APPROVAL_SEARCH_ATTRIBUTES = [
  BatonApprovalDue,
  BatonApprovers,
  BatonApprovalTools,
  BatonPendingApprovals,
] as const;

/**
 * The search attributes baton registers (`baton dev`, the servers baton starts, `ensureSearchAttributes`,
 * the compose stack). A namespace needs the first three before baton's workflows can run;
 * `BatonTeam` and the approval attributes are written only where registered, `BatonVariant` by chains
 * started in an experiment, `BatonTenant` by chains of a tenant.
 */
export const BATON_SEARCH_ATTRIBUTES = [
  BatonAgent,
  BatonStatusAttribute,
  BatonHandoffs,
  BatonTeam,
  BatonVariant,
  BatonTenant,
  ...APPROVAL_SEARCH_ATTRIBUTES,
] as const;

/** The search attribute Temporal's SDK records a run's patch markers in. */
const PATCH_ATTRIBUTE = 'TemporalChangeVersion';

/**
 * Whether an upsert of `keys` is an action on Temporal Cloud: one that writes more than the
 * `TemporalChangeVersion` a patch records.
 */
export function upsertIsAction(keys: readonly string[]): boolean {
  return keys.some((k) => k !== PATCH_ATTRIBUTE);
}
