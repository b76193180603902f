/**
 * A team's keys and entry rules: the options that say whose signatures a chain trusts and where it
 * may be entered, checked when the team is built and recorded with its snapshot.
 */
import type { EntryRules } from '../common/authority/entryRules';
import { type ApproverKey, approverKeysCheck } from '../common/signatures/keys';
import { type JwksSource, jwksSourcesProblems } from '../common/signatures/jwks';
import type { TeamSpec } from '../common/team';

/** The options of a `Team` that name keys and entry rules. */
export interface TeamKeyOptions {
  /**
   * Approvers' Ed25519 public keys, each with its key id and the approvers it signs for: decisions
   * signed with them are verified in the workflow, and policies with `requireSignature` accept no
   * others. Recorded with the team snapshot (docs/signatures.md).
   */
  approverKeys?: ApproverKey[];
  /**
   * Identity providers' published key sets (JWKS URLs), with the approvers each trusted key id signs
   * for: the worker fetches them when it starts (a set it cannot fetch or use stops the start with
   * `KeySetError`) and again as they age, and records the keys each new chain trusts with its
   * snapshot (docs/signatures.md). @default none
   * @example jwks: [{ url: 'https://idp.example.com/.well-known/jwks.json', approvers: { 'alice-2026': ['alice'] } }]
   */
  jwks?: JwksSource[];
  /** Trust keys a run's options name (`approverKeys` of the run) beside the team's. @default true */
  runApproverKeys?: boolean;
  /** Operators' Ed25519 keys: an override that loosens what protects a chain must be signed by one (docs/authority.md). */
  operatorKeys?: ApproverKey[];
  /**
   * Operators sign with passkeys only: a loosening override signed with an Ed25519 operator key is
   * refused, one signed with an `operatorKeys` entry with `webauthn` (a WebAuthn assertion) is taken.
   * Needs at least one such entry (docs/authority.md). @default false
   */
  requireOperatorPasskey?: boolean;
  /** Which agents a chain may be entered at directly, and what entering a gated one otherwise does (docs/authority.md). */
  entry?: EntryRules;
}

/** Problems with a team's keys, each naming the option and what would be valid. */
export function keyProblems(options: TeamKeyOptions): string[] {
  const problems = options.approverKeys !== undefined ? approverKeysCheck(options.approverKeys, 'approverKeys') : [];
  if (options.jwks !== undefined)
    problems.push(
      ...jwksSourcesProblems(options.jwks, Array.isArray(options.approverKeys) ? options.approverKeys : []),
    );
  if (options.operatorKeys !== undefined) problems.push(...approverKeysCheck(options.operatorKeys, 'operatorKeys'));
  if (options.requireOperatorPasskey !== undefined && typeof options.requireOperatorPasskey !== 'boolean')
    problems.push(
      `requireOperatorPasskey must be true or false, got ${JSON.stringify(options.requireOperatorPasskey)}`,
    );
  else if (options.requireOperatorPasskey && !options.operatorKeys?.some((k) => k.webauthn !== undefined))
    problems.push(
      'requireOperatorPasskey needs an operatorKeys entry with "webauthn" (an operator\'s passkey): without one no loosening could ever be signed',
    );
  if (options.runApproverKeys !== undefined && typeof options.runApproverKeys !== 'boolean')
    problems.push(`runApproverKeys must be true or false, got ${JSON.stringify(options.runApproverKeys)}`);
  return problems;
}

/** The team's keys and entry rules, as its snapshot records them. */
export function keysOf(
  options: TeamKeyOptions,
): Pick<TeamSpec, 'approverKeys' | 'jwks' | 'runApproverKeys' | 'operatorKeys' | 'requireOperatorPasskey' | 'entry'> {
  return {
    ...(options.approverKeys?.length ? { approverKeys: options.approverKeys.map((k) => ({ ...k })) } : {}),
    ...(options.jwks?.length ? { jwks: structuredClone(options.jwks) } : {}),
    ...(options.runApproverKeys === false ? { runApproverKeys: false } : {}),
    ...(options.operatorKeys?.length ? { operatorKeys: options.operatorKeys.map((k) => ({ ...k })) } : {}),
    ...(options.requireOperatorPasskey === true ? { requireOperatorPasskey: true } : {}),
    ...(options.entry ? { entry: structuredClone(options.entry) } : {}),
  };
}
