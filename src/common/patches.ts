/**
 * The ids of `patched()` changes to the commands baton's workflows issue: a change that would
 * alter the commands of recorded histories goes behind a new id here, decided once where its doc
 * says, so runs recorded before it replay as they ran.
 *
 * Workflow-safe: no I/O.
 */

/** Patch ids of changes to the workflow's commands; see the README on determinism. */
export const Patches = {
  /** Handoffs recorded with `upsertMemo` instead of the `recordHandoff` activity; hooks in `runHandoffHooks`. */
  HANDOFF_RECORD_IN_MEMO: 'handoff-record-in-memo',
  /**
   * Decided once, when a run starts: handoffs are recorded in the memo without asking
   * {@link HANDOFF_RECORD_IN_MEMO} mid-run, a run that continues as new first sets its own
   * `BatonStatus`, and an empty answer is sent back to the model (`onEmptyOutput`).
   */
  RUN_V2: 'baton-run-v2',
  /**
   * Decided once, when a run starts: the controls (budgets, loop detection, circuit breakers,
   * guardrails, tool approvals) act, record their events and count in the result.
   */
  CONTROLS: 'baton-controls',
  /** Decided once, when a run starts: the team snapshot is taken by a local activity. */
  LOCAL_SNAPSHOT: 'baton-local-snapshot',
  /**
   * Decided when a final turn (`onBudgetExceeded: 'final_answer'`) answers empty: the run fails
   * with `EmptyOutputError` rather than asking the model once more.
   */
  FINAL_TURN_ENDS: 'baton-final-turn-ends',
  /**
   * Decided once, when a run starts: what arrives from outside is held to `LIMITS` (a start, a
   * decision, overrides, a message over its limit is refused), specialists get a token their
   * reports must carry, and a decision for an approval waiting in a specialist is forwarded to it.
   */
  BOUNDS: 'baton-bounds',
  /**
   * Decided when a model or tool call first fails with a heartbeat timeout: the call is started
   * again (`lostWorkerRetries`) instead of failing.
   */
  LOST_WORKER_RESTARTS: 'baton-lost-worker-restarts',
  /**
   * Decided when a tool call first needs approval: a call whose arguments are not JSON or do not fit
   * the tool's parameters is answered as invalid without asking anyone, and the same call (tool and
   * arguments) is not put to people a second time in a chain.
   */
  TOOL_APPROVAL_CHECKS: 'baton-tool-approval-checks',
  /**
   * Decided once, when a run takes its team snapshot: the run puts its team version on record
   * (the `batonTeam` memo, and the `BatonTeam` search attribute where the namespace has it).
   */
  TEAM_VERSION: 'baton-team-version',
  /**
   * Decided between a conversation's turns: a conversation pinned to a worker deployment version
   * continues as new onto the current version when the current version changed, and a run that
   * finds its team changed takes a new snapshot before the next turn.
   */
  CONVERSATION_UPGRADE: 'baton-conversation-upgrade',
  /**
   * Decided once, when a run starts: its model calls say where their text goes as it forms (the
   * `stream` of their input), the chain takes steering messages and interrupts, a conversation
   * applies its mid-turn policy, and a handoff may hand the conversation back.
   */
  LIVE: 'baton-live',
  /**
   * Decided once, when a run starts: decisions may carry signatures, which the workflow verifies
   * against the keys the team or the run trusts; `requireSignature` refuses unsigned ones; every
   * decision's record says how its approver was established (`identity`).
   */
  SIGNATURES: 'baton-signatures',
  /**
   * Decided once, when a run starts: model calls are priced at the snapshot's prices (`usage.cost`),
   * `maxCost` is a budget, and a team's spend limits and shared breakers are asked through recorded
   * local activities.
   */
  ECONOMICS: 'baton-economics',
  /**
   * Decided when a capability routing request first finds several specialists that match it
   * equally well under a `routingStrategy` other than `best_match`: the strategy picks (reading
   * figures with the `specialistFigures` activity when it needs them) and the decision is recorded.
   */
  ROUTING_STRATEGIES: 'baton-routing-strategies',
  /**
   * Decided once, at a run's first patch check: a run started on code that has every patch above
   * records this one marker instead of one per patch (each with its own upsert of Temporal's
   * `TemporalChangeVersion` search attribute), and takes every path they guard. A run recorded
   * before it answers each patch by its own marker, as it ran. A patch added later is not covered.
   */
  BASELINE_2026_11: 'baton-baseline-2026-11',
  /**
   * Decided when a step of a conversation's turn is first refused by a worker that lacks the turn's
   * team (after the baseline, so not covered by it): the turn's callers are told at once
   * (`TurnStrandedError`), the refusal is on the record, and the turn waits for a worker of its team
   * past `teamMismatchTimeout` instead of failing, until one comes or a migration moves it.
   */
  STRANDED_TURNS: 'baton-stranded-turns',
  /**
   * Decided when a chain first asks a spend ledger or a shared breaker: the question is an activity
   * (not a local one, which would hold the chain's workflow task, and a worker slot, while the ledger
   * waits for a slot of its own), and a reservation that must wait for other chains' settles comes
   * back as "wait", for the chain to ask again after a durable timer.
   */
  SHARED_ECONOMICS_ACTIVITIES: 'baton-shared-economics-activities',
  /**
   * Decided once, when a run starts: what arrives is read by the workflow itself (a payload that is
   * not JSON, or too large to read, is refused like any bad input); each drain of the approval desk
   * records its refusals as one record per kind (counted and sampled), forwards one decision per
   * approval and publishes applied overrides once; and every wait (a handoff's, a tool call's, a
   * conversation's between turns) continues as new before Temporal's limits — history events and
   * bytes, updates — whatever arrives, carrying what waits.
   */
  INBOX_BOUNDS: 'baton-inbox-bounds',
  /**
   * Decided when a chain with a `teamMismatchTimeout` of its own delegates, and when a specialist's
   * first step is refused for its team: the specialist is started with its caller's timeout, and
   * waits for a worker of its team that long (read from its start, before it has a state), not
   * baton's default ten minutes.
   */
  SPECIALIST_TEAM_TIMEOUT: 'baton-specialist-team-timeout',
  /**
   * Decided once, when a run starts (after the baseline, so not covered by it): what protects a
   * chain may be tightened but not loosened (an override that loosens a protective option is refused
   * on the record unless an operator of the team signed it; start and replay options may not loosen
   * the team's approval rules), and a chain started at a gated agent waits for its approval or is
   * refused, as the team's entry rules say (docs/authority.md).
   */
  AUTHORITY: 'baton-authority',
  /**
   * Decided when a specialist a conversation's turn delegated to fails for its team (no worker has
   * the turn's team): the turn is stranded as when its own step is refused (its callers told, on the
   * record) and delegates again after a pause, until a worker of its team takes it or a migration
   * moves the turn, instead of failing with `TeamMismatchError`.
   */
  STRANDED_DELEGATIONS: 'baton-stranded-delegations',
  /**
   * Decided at a chain's first report from a specialist: a report is only a sign that what waits in
   * the specialist changed; the chain reads what waits there itself (the `readSpecialistApprovals`
   * activity queries the specialist, after checking Temporal records this chain as its parent), so
   * nothing readable from history — the token a specialist was started with — authorises a report.
   */
  REPORT_PULL: 'baton-report-pull',
  /**
   * Decided when an approval first opens in a chain whose team has notification channels: the
   * `notifyApprovers` activity is scheduled for it, not awaited (docs/notifications.md).
   */
  APPROVAL_NOTIFICATIONS: 'baton-approval-notifications',
  /**
   * Decided when an approval whose policy has timing (`dueIn`, `remindEvery`, `escalation`, its own
   * or the run's or the team's) is first asked for (after the baseline, so not covered by it): the
   * approval carries its policy and the wait takes the policy's steps on durable timers, each on the
   * record (docs/approvals.md).
   */
  APPROVAL_POLICIES: 'baton-approval-policies',
  /**
   * Decided when an approval of a chain whose worker found baton's approval search attributes in
   * its namespace first opens: every change to what waits writes `BatonApprovalDue`,
   * `BatonApprovers`, `BatonApprovalTools` and `BatonPendingApprovals`, which the inbox lists from.
   */
  APPROVAL_SEARCH_ATTRIBUTES: 'baton-approval-search-attributes',
  /**
   * Decided when a chain or conversation of a tenant (the run option `tenant`) starts: its workflow
   * id must begin `<tenant>/`, and it writes `BatonTenant` when its start did not.
   */
  TENANTS: 'baton-tenants',
  /**
   * Decided when an approval whose policy has `quorum` or `stages` is first asked for: it waits on
   * slots, each decision is a vote on the record (`approval_vote`, `approval_stage`), a decision may
   * fill another's slot with a verified delegation grant, and the votes decide it (docs/approvals.md).
   */
  APPROVAL_QUORUM: 'baton-approval-quorum',
  /**
   * Decided when an approver first asks a question about a waiting approval (request-info; after the
   * baseline, so not covered by it): the question and later its answer are kept on the waiting
   * approval and on the record, and the decision carries them (docs/approvals.md). A run replaying a
   * history without the marker refuses questions, as its code did.
   */
  APPROVAL_QUESTIONS: 'baton-approval-questions',
  /**
   * Decided when a conversation takes a message whose key is that of a message which interrupted the
   * running turn (sent again by its caller, or after a continue-as-new): it waits for that turn's
   * reply, as a message sent again waits for its first sending's, instead of interrupting again.
   */
  MERGED_MESSAGE_KEYS: 'baton-merged-message-keys',
  /**
   * Decided when a chain or conversation first takes a policy update (`tightenPolicy`; after the
   * baseline, so not covered by it): a newer team's approval policies apply from its next step on,
   * only ever tighter, and the update is on the record as `policy_updated` (docs/authority.md).
   */
  POLICY_UPDATES: 'baton-policy-updates',
  /**
   * Decided when a worker first refuses a new chain's team snapshot because its team is older than
   * the newest registered on its task queue: the snapshot is asked again of the queue (a remote
   * activity, not dispatched eagerly), so a worker of the newest team takes it (docs/chains.md).
   */
  STALE_WORKERS: 'baton-stale-workers',
  /**
   * Decided when a decision signed with a passkey (a WebAuthn assertion over the decision's digest)
   * is first applied: the chain acts on it and records its origin and signature counter. A run
   * replaying a history without the marker refuses it, as its code did (docs/signatures.md).
   */
  PASSKEYS: 'baton-passkeys',
  /**
   * Decided when a chain whose policy an update tightened migrates onto the current team
   * (`baton replay --on-current-team`): the approvals it ran under that ask more than the current
   * team's stay (docs/authority.md).
   */
  MIGRATION_KEEPS_POLICY: 'baton-migration-keeps-policy',
  /**
   * Decided when a run first writes its search attributes (as it starts): the upserts a workflow
   * task makes are written as one command (workflows/searchAttributes.ts), each being an action on
   * Temporal Cloud.
   */
  SEARCH_ATTRIBUTES_PER_TASK: 'baton-search-attributes-per-task',
  /**
   * Decided when the audit archiver starts a run: the run continues as new once its history holds
   * `eventsPerRun` events (its idle looks write history too), so a worker that takes it over
   * replays it within a workflow task's timeout.
   */
  ARCHIVER_HISTORY: 'baton-archiver-history',
  /**
   * Decided when an override arrives signed with an operator's passkey (a WebAuthn assertion over
   * the operator payload's digest): the chain weighs it, and records its origin and counter when it
   * applies. A run replaying a history without the marker refuses it, as its code did (docs/authority.md).
   */
  OPERATOR_PASSKEYS: 'baton-operator-passkeys',
  /**
   * Decided when a chain's entry starts to wait for its approval: the wait counts
   * `continueAsNewAfterEvents` from the events its run had when it began, and hands over once that
   * many more arrive (refused decisions, reminders), not only near Temporal's limits. A run
   * replaying a history without the marker waits as it did (as do runs from before
   * {@link Patches.INBOX_BOUNDS}, whose waits hand over only when Temporal suggests it).
   */
  ENTRY_WAIT_HANDS_OVER: 'baton-entry-wait-hands-over',
  /**
   * Decided when a migration between a conversation's turns finds no worker of the current team
   * within `teamMismatchTimeout`: the migration is refused with `TeamMismatchError`, and the
   * conversation goes on as it was. A run replaying a history without the marker fails, as it did.
   */
  MIGRATION_REFUSED: 'baton-migration-refused',
  /**
   * Decided at the first refusal of a step of a conversation's turn: the turn is stranded (its
   * callers told with `TurnStrandedError`, the refusal on the record) only once the step is still
   * refused after the quick tries, or past `teamMismatchTimeout`, not at its first refusal: while a
   * deploy rolls, a worker of the turn's team takes one of the next tries. A run replaying a history
   * without the marker strands the turn at its first refusal, as it did.
   */
  STRANDED_AFTER_QUICK_TRIES: 'baton-stranded-after-quick-tries',
  /**
   * Decided when a migration of a stranded turn finds no worker of the current team within
   * `teamMismatchTimeout`: the migration is refused with `TeamMismatchError`, and the turn waits on,
   * stranded, from its last step begun. A run replaying a history without the marker waits for that
   * worker as long as it takes, as it did.
   */
  MIGRATION_DURING_TURN_REFUSED: 'baton-migration-during-turn-refused',
} as const;

/** Patches added after {@link Patches.BASELINE_2026_11}: a run decides each by its own marker. */
const AFTER_BASELINE_2026_11: readonly string[] = [
  Patches.BASELINE_2026_11,
  Patches.STRANDED_TURNS,
  Patches.SHARED_ECONOMICS_ACTIVITIES,
  Patches.INBOX_BOUNDS,
  Patches.SPECIALIST_TEAM_TIMEOUT,
  Patches.AUTHORITY,
  Patches.STRANDED_DELEGATIONS,
  Patches.REPORT_PULL,
  Patches.APPROVAL_NOTIFICATIONS,
  Patches.APPROVAL_POLICIES,
  Patches.APPROVAL_SEARCH_ATTRIBUTES,
  Patches.TENANTS,
  Patches.APPROVAL_QUORUM,
  Patches.APPROVAL_QUESTIONS,
  Patches.MERGED_MESSAGE_KEYS,
  Patches.POLICY_UPDATES,
  Patches.STALE_WORKERS,
  Patches.PASSKEYS,
  Patches.MIGRATION_KEEPS_POLICY,
  Patches.SEARCH_ATTRIBUTES_PER_TASK,
  Patches.ARCHIVER_HISTORY,
  Patches.OPERATOR_PASSKEYS,
  Patches.ENTRY_WAIT_HANDS_OVER,
  Patches.MIGRATION_REFUSED,
  Patches.STRANDED_AFTER_QUICK_TRIES,
  Patches.MIGRATION_DURING_TURN_REFUSED,
];

/** The patches {@link Patches.BASELINE_2026_11} stands for. */
export const BASELINE_2026_11_COVERS: readonly string[] = Object.values(Patches).filter(
  (id) => !AFTER_BASELINE_2026_11.includes(id),
);
