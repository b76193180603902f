/**
 * What an approval desk is built with: the patches that decide how it holds and records what
 * arrives, the state a run's start carries, the clock of approval policies and the rules of
 * request-info.
 */
import type { ChainState } from '../../src/common/state';
import type { ApprovalClock } from './approvalClock';
import type { QuestionRules } from './deskQuestions';

/** What a desk does with what arrives. */
export interface DeskOptions {
  /**
   * Hold what arrives to `LIMITS`, give specialists tokens and forward decisions for their
   * approvals: the `baton-bounds` patch, decided when the run starts. @default true
   */
  bounded?: boolean;
  /** Verify, require and record decisions' signatures: the `baton-signatures` patch, decided when the run starts. @default false */
  signatures?: boolean;
  /**
   * The `baton-inbox-bounds` patch, decided when the run starts: each drain records its refusals as
   * one record per kind (counted, sampled), forwards one decision per approval and publishes applied
   * overrides once; and the chain's waits continue as new before Temporal's limits. @default false
   */
  inboxBounds?: boolean;
  /**
   * The `baton-authority` patch, decided when the run starts: an override that loosens a protective
   * option applies only with an operator's valid signature (docs/authority.md). @default false
   */
  authority?: boolean;
  /** The chain state the run's start carries, judged against before the chain is attached (`carried.ts`). @default none */
  carried?: () => ChainState | undefined;
  /** The clock of approval policies (SLA, reminders, escalation: `workflows/approvals/`). @default none: only timeouts act */
  clock?: ApprovalClock;
  /** The rules of request-info (`workflows/approvals/requestInfo.ts`). @default none: questions are refused */
  questions?: QuestionRules;
}
