/**
 * The protective run options, one table: for each, which way tightens it. Overrides, start options
 * and replays may tighten what protects a chain freely; a change the other way is refused on the
 * record unless an operator signed it (docs/authority.md). Options not in the table (timeouts,
 * retries, routing, priority, models) protect nothing and change freely.
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalPolicy } from '../approvals';
import { autoApprovalMs, effectiveTiming, reassignedTo } from '../approvalTiming';
import { durationMs } from '../check';
import type { ResolvedRunOptions } from '../options';
import type { ApproverKey } from '../signatures/keys';
import type { TeamSpec } from '../team';
import { ENTRY_SOURCE, resolveApprovalPolicy } from './policy';

/** What a comparison needs beside the two sets of options: the team's rules and the chain's start (ms), for deadlines. */
export interface AuthorityContext {
  team: Pick<TeamSpec, 'approvals' | 'agents' | 'runApproverKeys' | 'approvalPolicy'>;
  startedAt: number;
}

/** One protective option: which way tightens it, and the loosening in a change, in words naming what is allowed. */
export interface ProtectiveOption {
  /** Which way tightens it, as docs/authority.md's table says. */
  tightens: string;
  /** The loosening from `before` to `after`, in words naming what is allowed; `undefined` when the change keeps or tightens the option. */
  loosening(before: ResolvedRunOptions, after: ResolvedRunOptions, ctx: AuthorityContext): string | undefined;
}

/** A limit where lower is tighter; with `zeroIsNone`, 0 means no limit (the loosest). */
function limit(key: keyof ResolvedRunOptions, zeroIsNone = false): ProtectiveOption {
  const rank = (v: unknown) => (typeof v !== 'number' || (zeroIsNone && v === 0) ? Infinity : v);
  return {
    tightens: zeroIsNone ? 'lower (0, no limit, is the loosest)' : 'lower',
    loosening: (b, a) =>
      rank(a[key]) > rank(b[key])
        ? `"${key}" from ${String(b[key])} to ${String(a[key])} loosens it; allowed: ${zeroIsNone && b[key] === 0 ? 'any limit' : `${String(b[key])} or lower${zeroIsNone ? ' (not 0)' : ''}`}`
        : undefined,
  };
}

const deadlineAt = (v: unknown, startedAt: number): number => {
  if (v === undefined) return Infinity;
  const ms = durationMs(v as string | number);
  return ms !== undefined ? startedAt + ms : Date.parse(String(v));
};

/** Every protective option and which way tightens it. */
export const PROTECTIVE_OPTIONS: Record<string, ProtectiveOption> = {
  requireSignature: {
    tightens: 'true',
    loosening: (b, a) =>
      b.requireSignature === true && a.requireSignature !== true
        ? '"requireSignature" from true to off loosens it; allowed: true'
        : undefined,
  },
  approverKeys: {
    tightens: 'fewer keys, each signing for fewer approvers over a shorter window',
    loosening: (b, a, ctx) =>
      ctx.team.runApproverKeys === false ? undefined : keysLoosening(b.approverKeys ?? [], a.approverKeys ?? []),
  },
  approvals: {
    tightens:
      'approval on more handoffs, by fewer approvers, signed, never approved by a timeout or an escalation step',
    loosening: (b, a, ctx) => approvalsLoosening(ctx.team, b, a),
  },
  maxHandoffs: limit('maxHandoffs'),
  maxTurns: limit('maxTurns'),
  maxDelegationDepth: limit('maxDelegationDepth'),
  maxTokens: limit('maxTokens', true),
  maxCost: limit('maxCost', true),
  maxAgents: limit('maxAgents', true),
  maxInvalidHandoffRetries: limit('maxInvalidHandoffRetries'),
  maxOutputRetries: limit('maxOutputRetries'),
  maxLoopRefusals: limit('maxLoopRefusals'),
  maxGuardrailRetries: limit('maxGuardrailRetries'),
  breakerThreshold: limit('breakerThreshold', true),
  deadline: {
    tightens: 'earlier',
    loosening: (b, a, ctx) =>
      deadlineAt(a.deadline, ctx.startedAt) > deadlineAt(b.deadline, ctx.startedAt)
        ? `"deadline" from ${b.deadline === undefined ? 'none' : String(b.deadline)} to ${a.deadline === undefined ? 'none' : String(a.deadline)} loosens it; allowed: ${b.deadline === undefined ? 'any deadline' : 'the same time or earlier'}`
        : undefined,
  },
  loopWindow: {
    tightens: 'higher (0, off, is the loosest)',
    loosening: (b, a) =>
      a.loopWindow < b.loopWindow
        ? `"loopWindow" from ${b.loopWindow} to ${a.loopWindow} loosens loop detection; allowed: ${b.loopWindow} or higher`
        : undefined,
  },
  breakerCooldown: {
    tightens: 'longer',
    loosening: (b, a) =>
      (durationMs(a.breakerCooldown) ?? 0) < (durationMs(b.breakerCooldown) ?? 0)
        ? `"breakerCooldown" from ${String(b.breakerCooldown)} to ${String(a.breakerCooldown)} loosens it; allowed: ${String(b.breakerCooldown)} or longer`
        : undefined,
  },
};

/** The loosenings from `before` to `after`, each naming the option and what is allowed; none: `after` only tightens or keeps. */
export function looseningProblems(
  before: ResolvedRunOptions,
  after: ResolvedRunOptions,
  ctx: AuthorityContext,
): string[] {
  return Object.values(PROTECTIVE_OPTIONS).flatMap((o) => o.loosening(before, after, ctx) ?? []);
}

function keysLoosening(before: readonly ApproverKey[], after: readonly ApproverKey[]): string | undefined {
  for (const k of after) {
    const was = before.find((o) => o.kid === k.kid);
    const why = !was
      ? 'a key the run did not trust'
      : was.publicKey !== k.publicKey
        ? 'another public key under a trusted kid'
        : JSON.stringify(was.webauthn) !== JSON.stringify(k.webauthn)
          ? 'another passkey relying party or origins under a trusted kid'
          : k.approvers.some((x) => !was.approvers.includes(x))
            ? `approvers the key did not sign for (${k.approvers
                .filter((x) => !was.approvers.includes(x))
                .slice(0, 5)
                .join(', ')})`
            : k.service && !was.service
              ? "a service key where a person's was"
              : (was.notBefore !== undefined &&
                    (k.notBefore === undefined || Date.parse(k.notBefore) < Date.parse(was.notBefore))) ||
                  (was.notAfter !== undefined &&
                    (k.notAfter === undefined || Date.parse(k.notAfter) > Date.parse(was.notAfter)))
                ? 'a longer window of validity'
                : undefined;
    if (why)
      return `"approverKeys": key ${JSON.stringify(k.kid)} adds ${why}; allowed: the run's keys or fewer, each for the same approvers or fewer`;
  }
  return undefined;
}

function approvalsLoosening(
  team: AuthorityContext['team'],
  b: ResolvedRunOptions,
  a: ResolvedRunOptions,
): string | undefined {
  const agents = Object.keys(team.agents);
  for (const to of agents) {
    for (const from of [ENTRY_SOURCE, ...agents]) {
      const timed = (o: ResolvedRunOptions) => withTiming(resolveApprovalPolicy(team, o.approvals, from, to), o, team);
      const why = policyLoosening(timed(b), timed(a));
      if (why)
        return `"approvals": a handoff ${from === ENTRY_SOURCE ? 'entering' : `${from} →`} ${to} ${why}; allowed: rules that keep or add approvals, approvers and signatures`;
    }
  }
  return undefined;
}

/** `policy` with the timing it runs on under options `o` (its own fields, then the run's and the team's `approvalPolicy`). */
function withTiming(
  policy: ApprovalPolicy | undefined,
  o: ResolvedRunOptions,
  team: AuthorityContext['team'],
): ApprovalPolicy | undefined {
  if (!policy) return undefined;
  const { dueIn: _d, remindEvery: _r, escalation: _e, ...rest } = policy;
  return { ...rest, ...effectiveTiming(policy, o.approvalPolicy, team.approvalPolicy) };
}

/** How soon (ms after the request) `p` has a handoff approved with nobody deciding: a timeout that approves, or an escalation step. */
function autoApproveMs(p: ApprovalPolicy): number {
  const byTimeout =
    p.onTimeout === 'approve' && p.timeout !== undefined ? (durationMs(p.timeout) ?? Infinity) : Infinity;
  return Math.min(byTimeout, autoApprovalMs(p) ?? Infinity);
}

/** How `after` asks less than `before` of a handoff, in words; `undefined` when it asks as much or more. */
export function policyLoosening(
  before: ApprovalPolicy | undefined,
  after: ApprovalPolicy | undefined,
): string | undefined {
  if (!before) return undefined;
  if (!after) return 'would need no approval';
  // A quorum or stages are kept as the team set them: fewer votes or other slots would ask less.
  const slots = (p: ApprovalPolicy) =>
    p.quorum ? JSON.stringify(p.quorum) : p.stages ? JSON.stringify(p.stages) : undefined;
  if (slots(before) !== undefined && slots(after) !== slots(before))
    return `would not be decided by its ${before.quorum ? 'quorum' : 'stages'} as the team set them (${slots(before)!.slice(0, 200)})`;
  if (before.approvers && (!after.approvers || after.approvers.some((x) => !before.approvers!.includes(x))))
    return `could be decided by ${
      after.approvers
        ? after.approvers
            .filter((x) => !before.approvers!.includes(x))
            .slice(0, 5)
            .join(', ')
        : 'anyone'
    }, not only ${before.approvers.join(', ')}`;
  if (before.requireSignature && !after.requireSignature) return 'would take unsigned decisions';
  if (autoApproveMs(after) < autoApproveMs(before))
    return 'would be approved sooner by a timeout or an escalation step, with nobody deciding';
  const reassigned = before.approvers
    ? reassignedTo(after).filter((x) => !before.approvers!.includes(x) && !reassignedTo(before).includes(x))
    : [];
  if (reassigned.length > 0)
    return `could be reassigned by an escalation step to ${reassigned.slice(0, 5).join(', ')}, not only ${before.approvers!.join(', ')}`;
  return undefined;
}
