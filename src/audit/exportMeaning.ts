/**
 * What an export's events must mean, beyond their digests, for `baton audit --verify` to pass
 * them: each chain opens with its keys and policies; an approval is asked once and decided at
 * most once, after it was asked; a decision that needed a signature has one, and every signature
 * holds with the same pure verification the workflow ran; every tool call that needed approval
 * ran after the decision that approved it, under that decision, once; and what an event shows of
 * history is what its recorded digest names. A document made by hand may hold anything, so
 * nothing here throws: each check answers the problem in words, or nothing.
 */
import type { ApprovalRecord, PendingApproval } from '../common/approvals';
import { isRecord } from '../common/check';
import { approvalNeeded, type ToolApprovalSpec } from '../common/controls';
import { canonicalJson, sha256Hex } from '../common/signatures/canonical';
import { type ApproverKey, approverKeysCheck } from '../common/signatures/keys';
import { type ExportedChain, recordedValue } from './export';
import {
  askedUnderProblem,
  handoffPolicy,
  rulesAfterUpdate,
  type RulesInForce,
  rulesOfChain,
  unapprovedProblem,
} from './exportPolicy';
import { recordProblem, signatureProblem } from './exportSignatures';
import { type VoteEvent, votesProblem } from './exportVotes';

/** What the checks count, for the verdict. */
export interface MeaningCounts {
  signed: number;
  claimed: number;
  keys: string[];
  /** Edited arguments the export redacts, whose digest could not be checked against them. */
  unchecked: number;
  /** Tool calls and handoffs that ran under an approving decision made before them. */
  approvedCalls: number;
  /** Events whose recorded digest matches what they show. */
  recorded: number;
}

type Asked = Pick<PendingApproval, 'handoffId' | 'from' | 'to' | 'tool' | 'requireSignature' | 'approvers'> & {
  seq: number;
  under: RulesInForce;
  reassigned?: string[];
};

interface ChainSeen {
  header: ExportedChain;
  asked: Map<string, Asked>;
  decided: Map<string, { record: ApprovalRecord; seq: number }>;
  /** Approvals a tool call or handoff went through under, by the event that did, since the last replay marker. */
  used: Map<string, number>;
  /** The votes cast on each approval so far (`approval_vote`). */
  votes: Map<string, VoteEvent[]>;
  /** The approval rules in force: the opening event's, then each policy update's. */
  rules: RulesInForce;
  /** The team of the latest team snapshot. */
  team?: string;
}

/** The meaning checks over an export's events, in order. */
export class ExportMeaning {
  private readonly chains = new Map<string, ChainSeen>();

  constructor(
    private readonly counts: MeaningCounts,
    private readonly trusted?: ApproverKey[],
  ) {}

  /** What is wrong with event `seq` of chain `workflowId` (whose digest holds), if anything. */
  check(seq: number, workflowId: string, ev: Record<string, unknown>, recorded: unknown): string | undefined {
    try {
      return this.eventProblem(seq, workflowId, ev) ?? this.recordedProblem(ev, recorded);
    } catch (err) {
      return `the event is not well formed: ${(err as Error).message}`;
    }
  }

  private eventProblem(seq: number, workflowId: string, ev: Record<string, unknown>): string | undefined {
    if (ev.kind === 'chain') return this.opened(workflowId, ev);
    const chain = this.chains.get(workflowId);
    if (!chain) return `the chain ${workflowId} has no opening "chain" event before its events`;
    if (ev.kind === 'approval_requested') return this.asked(seq, chain, ev as unknown as Asked);
    if (ev.kind === 'policy_updated') return this.policyUpdated(seq, chain, ev);
    if (ev.kind === 'team_snapshot' && typeof ev.team === 'string') this.snapshot(chain, ev.team);
    // Who an escalation handed an approval to may decide it too, as the workflow lets them.
    const escalated =
      ev.kind === 'approval_escalated' && Array.isArray(ev.to) ? chain.asked.get(String(ev.handoffId)) : undefined;
    if (escalated) escalated.reassigned = [...(escalated.reassigned ?? []), ...(ev.to as unknown[]).map(String)];
    if (ev.kind === 'approval_decided') return this.decided(seq, workflowId, chain, ev as unknown as ApprovalRecord);
    if (ev.kind === 'approval_vote') return this.voted(seq, chain, ev);
    if (ev.kind === 'tool_call') return this.toolCall(seq, chain, ev);
    // A replay carries the decisions of the run it replays and acts on the answer again, under the same idempotency keys: each may cover its call once more.
    if (ev.kind === 'replayed_from') chain.used.clear();
    if (ev.kind === 'handoff') return this.handoff(seq, chain, ev);
    return undefined;
  }

  private opened(workflowId: string, ev: Record<string, unknown>): string | undefined {
    if (
      ev.workflowId !== workflowId ||
      !Array.isArray(ev.keys) ||
      !Array.isArray(ev.sensitiveTools) ||
      !isRecord(ev.toolApprovals) ||
      !Array.isArray(ev.handoffApprovals) ||
      !ev.handoffApprovals.every(Array.isArray)
    ) {
      return 'a chain must open with {kind: "chain", workflowId, keys, sensitiveTools, toolApprovals, handoffApprovals}';
    }
    if (this.chains.has(workflowId)) return `the chain ${workflowId} is opened twice`;
    const keyProblems = approverKeysCheck(
      ev.keys.map((k: unknown) => (isRecord(k) ? (({ source: _s, ...key }) => key)(k) : k)),
      'keys',
    );
    if (keyProblems.length > 0) return `the chain's keys are not approver keys: ${keyProblems[0]}`;
    this.chains.set(workflowId, {
      header: ev as unknown as ExportedChain,
      asked: new Map(),
      decided: new Map(),
      used: new Map(),
      votes: new Map(),
      rules: rulesOfChain(ev as unknown as ExportedChain),
    });
    return undefined;
  }

  /**
   * A team snapshot: the export lists the rules of the chain's last team, so a run on another (before
   * a migration) is held to them without judging its policy updates' loosening, and a run on the
   * listed team to its own rules again, or to the policy update the chain carried onto it.
   */
  private snapshot(chain: ChainSeen, team: string): void {
    if (team === chain.team) return;
    chain.team = team;
    const listed = chain.header.team === undefined || team === chain.header.team;
    // A policy update goes with the chain onto its new team, as the workflow carries it.
    const { foreign: _f, ...carried } = chain.rules;
    chain.rules = !listed ? { ...carried, foreign: true } : carried.update ? carried : rulesOfChain(chain.header);
  }

  /**
   * Whether the chain's run is on a team the export does not list, under no policy update (turns before
   * a conversation moved teams): what that team gated is not in the export, so a call or handoff that
   * names no approval is counted unchecked, not judged by the listed team's rules.
   */
  private unlisted(chain: ChainSeen): boolean {
    if (!chain.rules.foreign || chain.rules.update) return false;
    this.counts.unchecked++;
    return true;
  }

  private policyUpdated(seq: number, chain: ChainSeen, ev: Record<string, unknown>): string | undefined {
    const rules = rulesAfterUpdate(chain.rules, seq, ev);
    if (typeof rules === 'string') return rules;
    chain.rules = rules;
    return undefined;
  }

  private asked(seq: number, chain: ChainSeen, ev: Asked): string | undefined {
    if (typeof ev.handoffId !== 'string' || typeof ev.from !== 'string')
      return 'an approval request must name its approval (handoffId) and agent (from)';
    const earlier = chain.asked.get(ev.handoffId);
    if (earlier)
      return `approval ${ev.handoffId} is asked for twice (first at event #${earlier.seq}): an event was copied`;
    chain.asked.set(ev.handoffId, { ...ev, seq, under: chain.rules });
    return undefined;
  }

  private voted(seq: number, chain: ChainSeen, ev: Record<string, unknown>): string | undefined {
    const id = String(ev.handoffId);
    if (!chain.asked.has(id)) return `it is a vote on approval ${id}, which no approval_requested before it asked for`;
    if (chain.decided.has(id)) return `it is a vote on approval ${id}, which was decided before it`;
    chain.votes.set(id, [...(chain.votes.get(id) ?? []), { seq, event: ev }]);
    return undefined;
  }

  private decided(seq: number, workflowId: string, chain: ChainSeen, r: ApprovalRecord): string | undefined {
    const shapeProblem = recordProblem(r);
    if (shapeProblem) return shapeProblem;
    const asked = chain.asked.get(r.handoffId);
    if (!asked)
      return `it decides approval ${r.handoffId}, which no approval_requested before it in the chain asked for: a decision was moved before its request, or its request removed`;
    const earlier = chain.decided.get(r.handoffId);
    if (earlier)
      return `approval ${r.handoffId} is decided twice (first at event #${earlier.seq}): an approval is decided once, so a decision was copied`;
    chain.decided.set(r.handoffId, { record: r, seq });
    const votes = chain.votes.get(r.handoffId) ?? [];
    const voteProblem =
      r.votes !== undefined || votes.length > 0
        ? votesProblem(workflowId, asked, r, votes, chain.header.keys, this.counts, this.trusted)
        : undefined;
    if (voteProblem) return voteProblem;
    return signatureProblem(workflowId, chain, asked, r, this.counts, this.trusted);
  }

  /** A tool call that ran: under its approving decision, made before it, when the team's policy needs one. */
  private toolCall(seq: number, chain: ChainSeen, ev: Record<string, unknown>): string | undefined {
    const execution = isRecord(ev.execution) ? ev.execution : undefined;
    if (ev.answeredBy !== 'tool' || !execution || execution.status === 'not_scheduled') return undefined;
    const agent = String(ev.agent);
    const tool = String(ev.tool);
    const asked = typeof ev.requestedArguments === 'string' ? ev.requestedArguments : String(ev.arguments);
    const spec = chain.rules.toolApprovals[`${agent}/${tool}`] as ToolApprovalSpec | undefined;
    const redacted = chain.header.sensitiveTools.includes(`${agent}/${tool}`);
    // Redacted arguments cannot be weighed against the policy's conditions; a call without conditions needs approval whatever they are.
    const needed = spec !== undefined && (redacted && spec.when?.length ? undefined : approvalNeeded(spec, asked));
    if (ev.approval === undefined) {
      if (needed && this.unlisted(chain)) return undefined;
      if (needed && chain.rules.update) return unapprovedProblem(chain.rules, `the tool call ${agent}/${tool}`, spec);
      if (needed)
        return `the tool call ${agent}/${tool} ran, and the team's policy needs an approval for it, but it names none: a call that needed approval must run after the decision that approved it`;
      if (needed === undefined) this.counts.unchecked++;
      return undefined;
    }
    if (typeof ev.approval !== 'string') return 'a tool call names its approval by its id (a string)';
    return this.ranUnder(seq, chain, ev.approval, { agent, tool, ran: String(ev.arguments), asked, redacted });
  }

  private ranUnder(
    seq: number,
    chain: ChainSeen,
    id: string,
    call: { agent: string; tool: string; ran: string; asked: string; redacted: boolean },
  ): string | undefined {
    const what = `the tool call ${call.agent}/${call.tool} ran under approval ${id}`;
    const request = chain.asked.get(id);
    if (!request?.tool || request.from !== call.agent || request.tool.name !== call.tool)
      return `${what}, which no approval_requested before it asked for about that call`;
    if (request.tool.arguments !== call.asked) return `${what}, but that approval was asked about other arguments`;
    const decision = chain.decided.get(id)?.record;
    if (!decision)
      return `${what}, but no decision before it approved that call: a decision was removed, or moved after the call`;
    if (decision.outcome === 'rejected' || (decision.outcome === 'timed_out' && decision.onTimeout !== 'approve'))
      return `${what}, which was ${decision.outcome === 'rejected' ? 'rejected' : 'not approved in time'}`;
    if (!call.redacted && call.ran !== (decision.editedArguments ?? call.asked))
      return `${what}, but with other arguments than the decision approved`;
    const rule = askedUnderProblem(
      request.under,
      `the tool call ${call.agent}/${call.tool} ran`,
      request.under.toolApprovals[`${call.agent}/${call.tool}`],
      request,
      decision,
    );
    if (rule) return rule;
    const earlier = chain.used.get(id);
    if (earlier !== undefined)
      return `${what}, which the call at event #${earlier} ran under already: an approved call runs once`;
    chain.used.set(id, seq);
    this.counts.approvedCalls++;
    return undefined;
  }

  /** A handoff: after the decision that approved it, when the chain's rules needed one. */
  private handoff(seq: number, chain: ChainSeen, ev: Record<string, unknown>): string | undefined {
    const [from, to] = [String(ev.from), String(ev.to)];
    const policy = handoffPolicy(chain.rules, from, to);
    if (!isRecord(ev.approval))
      return policy && !this.unlisted(chain)
        ? unapprovedProblem(chain.rules, `the handoff ${from} → ${to}`, policy)
        : undefined;
    const id = String(ev.approval.handoffId);
    const what = `the handoff ${from} → ${to} happened under approval ${id}`;
    const request = chain.asked.get(id);
    if (!request || request.tool || request.from !== from || request.to !== to)
      return `${what}, which no approval_requested before it asked for about that handoff`;
    const decision = chain.decided.get(id)?.record;
    if (!decision)
      return `${what}, but no decision before it approved it: a decision was removed, or moved after the handoff`;
    if (decision.outcome === 'rejected' || (decision.outcome === 'timed_out' && decision.onTimeout !== 'approve'))
      return `${what}, which was ${decision.outcome === 'rejected' ? 'rejected' : 'not approved in time'}`;
    if (canonicalJson(ev.approval) !== canonicalJson(recordedValue({ ...decision, kind: 'approval_decided' })))
      return `${what}, but the decision it carries is not the one recorded before it`;
    const rule = askedUnderProblem(
      request.under,
      `the handoff ${from} → ${to} happened`,
      handoffPolicy(request.under, from, to),
      request,
      decision,
    );
    if (rule) return rule;
    const earlier = chain.used.get(id);
    if (earlier !== undefined)
      return `${what}, which event #${earlier} used already: an approval lets one handoff through`;
    chain.used.set(id, seq);
    this.counts.approvedCalls++;
    return undefined;
  }

  /** Whether an event's recorded digest names what the event shows. */
  private recordedProblem(ev: Record<string, unknown>, recorded: unknown): string | undefined {
    if (recorded === undefined) return undefined;
    if (!isRecord(recorded) || !Number.isSafeInteger(recorded.eventId) || typeof recorded.digest !== 'string')
      return 'its "recorded" must be {eventId, digest}';
    const value = recordedValue(ev);
    if (value === undefined) return `a ${String(ev.kind)} event records no payload of history`;
    if (sha256Hex(canonicalJson(value)) !== recorded.digest)
      return `what it shows is not what its recorded digest names (history event ${String(recorded.eventId)}): it was changed after it was read from history`;
    this.counts.recorded++;
    return undefined;
  }
}
