/**
 * Every recorded history, audited: each audit event names the history event it was read from, sits
 * in history order and carries that event's time; a tool call that waited for approval shows after
 * the decision, where it ran.
 */
import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { describe, expect, it } from 'vitest';
import { buildAudit, type AuditEvent } from '../../src/audit/chain';
import { buildConversationAudit } from '../../src/audit/conversation';
import { activityName, recordedApprovalEvent, recordedHandoff } from '../../src/audit/history';
import { whereOf } from '../../src/audit/place';
import { LIVE_MEMO, TEAM_MEMO } from '../../src/common/messages';
import type { HistoryEvent } from '../../src/payloads/read';

const ROOT = path.join(__dirname, '..');
const filesIn = (dir: string) =>
  fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .map((f) => path.join(dir, f))
    .sort();
const read = (file: string): HistoryEvent[] =>
  historyFromJSON(JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'))).events ?? [];

/** The runs of one chain, oldest first: `x.run1.json`, `x.run2.json`, … read as one chain when they continue as new; each file on its own too. */
function chains(files: string[]): { name: string; runs: { runId: string; events: HistoryEvent[] }[] }[] {
  const single = files.map((f) => ({ name: f, runs: [{ runId: f, events: read(f) }] }));
  const groups = new Map<string, string[]>();
  for (const f of files) {
    const m = /^(.*)\.run(\d+)\.json$/.exec(f);
    if (m) groups.set(m[1]!, [...(groups.get(m[1]!) ?? []), f]);
  }
  const continued = [...groups.entries()]
    .map(([name, group]) => ({
      name,
      runs: group.sort((a, b) => runNumber(a) - runNumber(b)).map((f) => ({ runId: f, events: read(f) })),
    }))
    .filter((c) =>
      c.runs.slice(1).every((r) => r.events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId),
    );
  // Histories of baton's other workflows (a shared breaker, an experiment) are no chain's audit.
  const ofChains = (c: { runs: { events: HistoryEvent[] }[] }) =>
    ['handoffRun', 'conversation'].includes(
      c.runs[0]?.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '',
    );
  return [...single, ...continued].filter(ofChains);
}
const runNumber = (f: string) => Number(/\.run(\d+)\.json$/.exec(f)![1]);

/** What kind of history event an audit event of `kind` may be read from. */
function sources(e: HistoryEvent, scheduledNames: Map<string, string>): string[] {
  const marker = e.markerRecordedEventAttributes ? ['marker'] : [];
  const name = activityName(e);
  if (name) return [`scheduled:${name}`];
  const completed = e.activityTaskCompletedEventAttributes;
  if (completed) return [`completed:${scheduledNames.get(String(completed.scheduledEventId))}`];
  const out: string[] = [...marker];
  if (recordedHandoff(e)) out.push('handoff');
  const memo = recordedApprovalEvent(e);
  if (memo) out.push(`memo:${memo.type}`);
  if (e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[TEAM_MEMO]) out.push('memo:team');
  if (e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[LIVE_MEMO]) out.push('memo:live');
  if (e.workflowExecutionStartedEventAttributes) out.push('started');
  if (e.workflowTaskFailedEventAttributes) out.push('task_failed');
  if (e.workflowExecutionSignaledEventAttributes) out.push('signal');
  if (e.workflowExecutionUpdateAcceptedEventAttributes) out.push('update');
  if (e.startChildWorkflowExecutionInitiatedEventAttributes) out.push('child_started');
  if (e.childWorkflowExecutionCompletedEventAttributes || e.childWorkflowExecutionFailedEventAttributes)
    out.push('child_ended');
  if (e.workflowExecutionCompletedEventAttributes) out.push('closed:final_answer');
  if (e.workflowExecutionFailedEventAttributes) out.push('closed:failed');
  if (e.workflowExecutionContinuedAsNewEventAttributes) out.push('closed:continued_as_new');
  if (e.workflowExecutionTerminatedEventAttributes) out.push('closed:terminated');
  if (e.workflowExecutionCanceledEventAttributes) out.push('closed:cancelled');
  return out;
}

const MODEL_CALL = ['scheduled:callModel', 'marker'];
/** Where a model's answer is read: its call, or the input of a run that resumes acting on it again (a replay). */
const MODEL_ANSWER = ['completed:callModel', 'marker', 'started'];
/** The history events each kind of audit event comes from. */
const FROM: Record<string, (e: AuditEvent) => string[]> = {
  run_started: () => ['started'],
  replayed_from: () => ['started', 'task_failed'],
  team_snapshot: () => ['scheduled:loadTeam', 'marker'],
  model_turn: () => MODEL_CALL,
  workflow_message: () => MODEL_CALL,
  handoff_requested: () => MODEL_ANSWER,
  // A call that ran is where it ran; one the workflow answered, where the answer shows; else where the model asked.
  tool_call: (e) =>
    e.kind === 'tool_call' && e.execution && e.execution.status !== 'not_scheduled'
      ? ['scheduled:runTool']
      : e.kind === 'tool_call' && e.result !== undefined
        ? [...MODEL_CALL, 'handoff', 'scheduled:recordHandoff']
        : MODEL_ANSWER,
  handoff: () => ['handoff', 'scheduled:recordHandoff'],
  approval_requested: () => ['memo:approval_requested'],
  approval_decided: () => ['memo:approval_decided'],
  decision_refused: () => ['memo:decision_refused'],
  approval_overdue: () => ['memo:approval_overdue'],
  approval_reminded: () => ['memo:approval_reminded'],
  approval_escalated: () => ['memo:approval_escalated'],
  approval_vote: () => ['memo:approval_vote'],
  approval_stage: () => ['memo:approval_stage'],
  delegated: () => ['memo:delegated'],
  approval_asked: () => ['memo:approval_asked'],
  approval_answered: () => ['memo:approval_answered'],
  policy_updated: () => ['memo:policy_updated'],
  report_refused: () => ['memo:report_refused'],
  overrides_applied: () => ['memo:overrides_applied'],
  overrides_refused: () => ['memo:overrides_refused'],
  control: () => ['memo:control'],
  routing_decided: () => ['memo:routing_decided'],
  team_changed: () => ['memo:team'],
  live: () => ['memo:live'],
  signal: () => ['signal'],
  update: () => ['update'],
  delegation: () => ['child_started'],
  delegation_ended: () => ['child_ended'],
  workflow_task_failed: () => ['task_failed'],
  final_answer: () => ['closed:final_answer'],
  failed: () => ['closed:failed'],
  continued_as_new: () => ['closed:continued_as_new'],
  terminated: () => ['closed:terminated'],
  cancelled: () => ['closed:cancelled'],
};

/** Checks `events` (each naming its run and history event) against the histories of `runs`: source, time and order. */
function checkAgainstHistory(
  runs: { runId: string; events: HistoryEvent[] }[],
  events: (AuditEvent & { kind: string })[],
): string[] {
  const problems: string[] = [];
  const byRun = new Map(
    runs.map((r, i) => [r.runId, { index: i, events: new Map(r.events.map((e) => [Number(e.eventId), e])) }]),
  );
  let last = [-1, -1];
  for (const [i, event] of events.entries()) {
    const label = `#${i} ${event.kind} (${event.runId} event ${event.eventId})`;
    const run = byRun.get(event.runId);
    const source = run?.events.get(event.eventId);
    if (!run || !source) {
      problems.push(`${label}: no such history event`);
      continue;
    }
    const place = [run.index, event.eventId];
    if (place[0]! < last[0]! || (place[0] === last[0] && place[1]! < last[1]!))
      problems.push(`${label}: comes after event ${last[1]} of run #${last[0]}`);
    last = place;
    if (event.at !== whereOf(source, event.runId).at)
      problems.push(`${label}: at ${event.at}, but its history event is at ${whereOf(source, event.runId).at}`);
    const allowed = FROM[event.kind]?.(event) ?? [];
    const names = new Map(
      runs[run.index]!.events.flatMap((e) => (activityName(e) ? [[String(e.eventId), activityName(e)!] as const] : [])),
    );
    const found = sources(source, names);
    if (!found.some((s) => allowed.includes(s)))
      problems.push(`${label}: read from ${found.join('/') || 'an unrelated event'}, expected ${allowed.join(' or ')}`);
  }
  return problems;
}

const chainFiles = filesIn('histories');
const conversationFiles = filesIn('conversation/histories');

describe('the audit follows the order and times of history, for every recorded history', () => {
  it('has histories of chains and of conversations to check', () => {
    expect(chainFiles.length).toBeGreaterThanOrEqual(40);
    expect(conversationFiles.length).toBeGreaterThanOrEqual(3);
  });

  for (const { name, runs } of chains(chainFiles)) {
    it(name, () => {
      const audit = buildAudit('recorded', runs);
      expect(audit.events.length).toBeGreaterThan(2);
      expect(checkAgainstHistory(runs, audit.events)).toEqual([]);
    });
  }

  for (const { name, runs } of chains(conversationFiles)) {
    it(name, () => {
      const steps = buildConversationAudit('recorded', runs).turns.flatMap((t) => t.steps);
      expect(checkAgainstHistory(runs, steps)).toEqual([]);
    });
  }
});

describe('a call that waited for approval: asked → decided → ran → its result', () => {
  it('shows the tool call where it ran, after the approval asked for it and its decision', () => {
    const audit = buildAudit('recorded', [{ runId: 'r', events: read('histories/controls.json') }]);
    const kinds = audit.events
      .map((e) => (e.kind === 'tool_call' ? `tool_call:${e.tool}` : e.kind))
      .filter((k) => k !== 'signal' && k !== 'update');
    const asked = kinds.indexOf('approval_requested');
    expect(kinds.slice(asked, asked + 3)).toEqual(['approval_requested', 'approval_decided', 'tool_call:refund']);
    const call = audit.events.find((e) => e.kind === 'tool_call')!;
    const decided = audit.events.find((e) => e.kind === 'approval_decided')!;
    expect(Date.parse(call.at)).toBeGreaterThanOrEqual(Date.parse(decided.at));
  });
});
