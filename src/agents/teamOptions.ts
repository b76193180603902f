/**
 * What a {@link Team} (`team.ts`) is built with besides its agents: approval rules, timing and
 * rejection reasons, handoff tools, shared state, its name and version, remote agents,
 * notifications, event rules, keys and economics.
 */
import type { ApprovalRule } from '../common/approvals';
import type { ApprovalTiming } from '../common/approvalTiming';
import type { RejectionReason } from '../common/approvalReasons';
import type { EconomicsOptions } from '../common/economics/spec';
import type { HandoffToolStyle } from './agent';
import type { EventRule } from './eventRules';
import type { NotificationOptions } from './notifications';
import type { RemoteAgent } from './remote';
import type { TeamKeyOptions } from './teamKeys';

/** Options of a {@link Team}; `prices`, `spendLimits` and `sharedBreakers` are described in docs/economics.md. */
export interface TeamOptions extends EconomicsOptions, TeamKeyOptions {
  /**
   * Approval rules for edges (`{from, to, …}`) or targets (`{to, …}`); an edge rule wins over a
   * target rule, and a run's own `approvals` win over the team's.
   */
  approvals?: ApprovalRule[];
  /**
   * The team's approval timing — `dueIn` (SLA), `remindEvery`, `escalation` — for every approval
   * whose policy and run set none; a policy's own fields win, then the run's `approvalPolicy`
   * (docs/approvals.md). @default none
   */
  approvalPolicy?: ApprovalTiming;
  /**
   * Typed reasons a rejection may give, e.g. `[{ code: 'over_limit', label: 'Over the refund limit' }]`:
   * with them a rejection's `reason` must be one of the codes (an unknown one is refused, naming the
   * valid codes), and the agent receives the code and label as JSON (docs/approvals.md).
   * @default none: a rejection's reason is free text
   */
  rejectionReasons?: RejectionReason[];
  /** How every agent is offered its handoffs, unless it says otherwise. @default "single" */
  handoffTools?: HandoffToolStyle;
  /**
   * Let handoffs carry an `update` of the run's shared state (`context`, `artifacts`,
   * `workflowState`), which every later agent reads with the `readState` tool and which is in the
   * result and the audit. @default false
   */
  sharedState?: boolean;
  /**
   * The team's name, the part before `@` of its version id (`support@2026-11-24`), which the
   * `BatonTeam` search attribute, the audit and `baton pending` show. @default "team"
   */
  name?: string;
  /**
   * A readable label for this version of the team, e.g. a date or a release. Without one the
   * version id shows the first 12 digits of the team's hash. Either way a chain's steps run only
   * on workers whose team has what they need; the label is for people.
   * @example new Team(agents, { name: 'support', version: '2026-11-24' })
   */
  version?: string;
  /** Agents of other teams, reached over A2A, that agents delegate tasks to with `delegate(id)` (`remoteAgent`). */
  remotes?: RemoteAgent[];
  /** Where approvers are told that an approval waits: webhooks, email, Slack (docs/notifications.md). @default none */
  notifications?: NotificationOptions;
  /**
   * Which CloudEvents start a chain (`{type, start: agent}`) and which are sent to a conversation
   * (`{type, message: {conversation: '$.data.ticket'}}`); the service that serves the team reads
   * them at `POST /events` (docs/protocols.md). @default none
   */
  events?: EventRule[];
}
