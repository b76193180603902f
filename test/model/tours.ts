/**
 * Two fixed sequences through every operation, one per lane, so every bounded run has each
 * operation, every deploy, a worker SIGKILL and a server restart at least once whatever the
 * generated sequences hold.
 */
import type { Step } from './harness';

const s = (op: string, params: Record<string, unknown> = {}): Step => ({ op, params });

/**
 * Unversioned workers: a conversation takes a message on v1; a followed chain refunds (a stale decision refused, then approved signed with
 * edited arguments) and hands off to billing (an approver the policy does not name refused, a
 * flood, then alice by signal); a worker is SIGKILLed while billing's model call waits; v1 goes
 * away and the chain's next lookup is stranded: it fails with TeamMismatchError and is migrated by
 * replay — its failed run closing while the archive's target is down, archived once it is back,
 * after the archive worker was restarted. The conversation's next turn is stranded the same way (its
 * lookup needs v1): its caller is told, a message sent over HTTP behind it too; `baton replay
 * --on-current-team` moves it onto v2, the messages sent again are answered once each, an HTTP retry
 * (with and without Idempotency-Key) is the same message. A conversation then takes messages under
 * the interrupt and reject policies, is steered, is compacted and continues as new. One call waits
 * at a time, so each pick names it.
 */
export const UNVERSIONED_TOUR: Step[] = [
  s('chat_start', { agent: 1, midTurn: 'enqueue', compact: false, tinyCan: false, stream: false }),
  s('answer_text', { call: 0, text: 'Done.' }),
  s('start', { agent: 0, preset: 'plain', follow: true }),
  s('answer_tool', { call: 0, tool: 'refund', amount: 40, twice: true }),
  s('refused_decision', { approval: 0, kind: 'stale_hash' }),
  s('tenant_cross', { root: 0, decide: true, approval: 0 }),
  s('tenant_cross_mcp', { root: 0, decide: false, approval: 0 }),
  s('tenant_cross_mcp', { root: 0, decide: true, approval: 0 }),
  s('approve', { approval: 0, signed: true, edit: true, via: 'update' }),
  s('answer_handoff', { call: 0, target: 0, invalid: false }),
  s('refused_decision', { approval: 0, kind: 'not_approver' }),
  s('flood', { approval: 0, seed: 7, n: 20 }),
  s('approve', { approval: 0, signed: false, edit: false, via: 'signal' }),
  s('kill_worker', { slot: 0 }),
  s('archive_worker_restart'),
  s('redeploy', { mode: 'v1_gone' }),
  s('answer_handoff', { call: 0, target: 0, invalid: false }),
  s('archive_outage'),
  s('answer_tool', { call: 0, tool: 'lookup', amount: 1, twice: false }),
  s('replay', { chain: 0, overrides: true }),
  s('answer_text', { call: 0, text: 'Here is the answer: 42.' }),
  s('archive_restore'),
  s('archive_check', { root: 0 }),
  s('chat_send', { chat: 0, midTurn: 'default', long: false, stream: false }),
  s('answer_tool', { call: 0, tool: 'lookup', amount: 1, twice: false }),
  s('http_send', { chat: 0, header: true, midTurn: 'default' }),
  s('chat_migrate', { chat: 0, stranded: true, cli: true }),
  s('answer_text', { call: 0, text: 'Found it.' }),
  s('answer_text', { call: 0, text: 'And the second.' }),
  s('http_retry', { message: 0 }),
  s('http_send', { chat: 0, header: false, midTurn: 'default' }),
  s('http_retry', { message: 1 }),
  s('answer_text', { call: 0, text: 'Third.' }),
  s('chat_end', { chat: 0 }),
  s('chat_start', { agent: 1, midTurn: 'enqueue', compact: true, tinyCan: true, stream: true }),
  s('chat_send', { chat: 0, midTurn: 'interrupt', long: true, stream: false }),
  s('steer', { root: 0, interrupt: false }),
  s('answer_text', { call: 0, text: 'Done.' }),
  s('chat_send', { chat: 0, midTurn: 'reject', long: false, stream: true }),
  s('chat_send', { chat: 0, midTurn: 'enqueue', long: true, stream: false }),
];

/**
 * Worker Deployments: billing pays out (unsigned and badly signed decisions refused, then alice's
 * signed one; its answer streams while the stream broker is down); triage delegates to ledger, another team's agent served over A2A, and both that
 * team's service and the worker waiting on its task are SIGKILLed mid-task; a chain that continues as new every few steps delegates to research, whose refund
 * waits in the specialist while the server is restarted; v2 is deployed beside the draining v1;
 * overrides (one refused by the run) and an interrupt arrive; an invalid handoff fails the chain,
 * which a replay continues, and so does a second replay after its model provider failed for good; a conversation on v2 rolls a turn back and is ended.
 */
export const VERSIONED_TOUR: Step[] = [
  s('start', { agent: 2, preset: 'signed', follow: true }),
  s('answer_tool', { call: 0, tool: 'payout', amount: 9, twice: false }),
  s('refused_decision', { approval: 0, kind: 'unsigned' }),
  s('refused_decision', { approval: 0, kind: 'bad_signature' }),
  s('approve', { approval: 0, signed: true, edit: false, via: 'update' }),
  s('broker_down', { downMs: 2000, across: true }),
  s('answer_text', { call: 0, text: 'Paid.' }),
  s('archive_check', { root: 0 }),
  s('start', { agent: 0, preset: 'plain', follow: false }),
  s('answer_remote_delegate', { call: 0, fault: 'both', downMs: 500 }),
  s('answer_text', { call: 0, text: 'The ledger settled it.' }),
  s('start', { agent: 0, preset: 'tiny_can', follow: true }),
  s('answer_delegate', { call: 0 }),
  s('answer_tool', { call: 0, tool: 'refund', amount: 12, twice: false }),
  s('forge_report', { approval: 0, how: 'rewrite' }),
  s('forge_report', { approval: 0, how: 'hide' }),
  s('restart_server', { downMs: 500 }),
  s('approve', { approval: 0, signed: false, edit: false, via: 'update' }),
  s('redeploy', { mode: 'drain' }),
  s('override', { chain: 0, maxHandoffs: 4, bogus: false }),
  s('override', { chain: 0, maxHandoffs: 2, bogus: true }),
  s('answer_text', { call: 0, text: 'Found it.' }),
  s('steer', { root: 0, interrupt: true }),
  s('answer_handoff', { call: 0, target: 0, invalid: true }),
  s('replay', { chain: 0, overrides: false }),
  s('answer_fail', { call: 0 }),
  s('replay', { chain: 0, overrides: false }),
  s('answer_text', { call: 0, text: 'Done.' }),
  s('chat_start', { agent: 0, midTurn: 'rollback', compact: false, tinyCan: false, stream: false }),
  s('chat_send', { chat: 0, midTurn: 'rollback', long: false, stream: true }),
  s('answer_text', { call: 0, text: 'Only the second.' }),
  s('chat_end', { chat: 0 }),
];
