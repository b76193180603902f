/**
 * The audit chain for people: a timeline for a terminal and a Mermaid flowchart. Long texts and
 * errors are clipped to one line here; the JSON keeps them whole.
 */
import { liveLine } from './live';
import { displayText } from '../common/display';
import type { ControlEvent } from '../common/controls';
import { DELEGATE_TOOL_NAME, SPECIALIST_DELEGATE_TOOL_NAME } from '../common/delegation';
import {
  HandoffRequestOutcome,
  type AuditChain,
  type AuditEvent,
  type ControlAuditEvent,
  type Execution,
  type HandoffRequestedEvent,
} from './types';
import { approvalLine, sender } from './approvalLines';
import { clip, ERROR_WIDTH, quoted, time } from './timelineText';

export { toMermaid } from './mermaid';

const STUCK_WIDTH = 400;
const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const attempts = (x: Execution) =>
  `${x.attempts > 1 ? `, ${x.attempts} attempts` : ''}${x.lostWorkers ? `, started again after ${x.lostWorkers === 1 ? 'a lost worker' : `${x.lostWorkers} lost workers`}` : ''}`;
const ended = (x: Execution) =>
  x.status === 'completed'
    ? ''
    : ` [${x.status.replace(/_/g, ' ')}${x.error ? `: ${clip(x.error, ERROR_WIDTH)}` : ''}]`;

/** A readable timeline of the chain for a terminal. */
export function formatTimeline(chain: AuditChain): string {
  const head = [
    `chain ${chain.workflowId}: ${chain.status}${chain.runIds.length > 1 ? ` (${chain.runIds.length} runs)` : ''}`,
    // Whole: what keeps a stuck chain from moving is the first thing its reader needs.
    chain.stuck
      ? `stuck since ${time(chain.stuck.since)}: its workflow task keeps failing: ${clip(chain.stuck.error, STUCK_WIDTH)}`
      : undefined,
    chain.input ? `input: ${chain.input.agent} ← ${quoted(chain.input.input, 100)}` : undefined,
  ]
    .filter((l): l is string => Boolean(l))
    .map(displayText);
  const over = chain.status !== 'running';
  const lines = chain.events.flatMap((e) => {
    const line = describeEvent(e, over);
    if (!line) return [];
    // Whatever an event holds from outside, its line stays one line of visible text.
    const own = `${time(e.at)}  ${pad(displayText(line[0]), 10)} ${displayText(line[1])}`;
    // A specialist's own chain, indented under the delegation that started it.
    const child = e.kind === 'delegation' ? chain.children?.find((c) => c.workflowId === e.childWorkflowId) : undefined;
    return child
      ? [
          own,
          ...formatTimeline(child)
            .split('\n')
            .map((l) => `    │ ${l}`),
        ]
      : [own];
  });
  return [...head, ...lines].join('\n');
}

/** A value as one quoted line: text as it is, anything else as JSON. */
const shownValue = (v: unknown, n: number) => quoted(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''), n);

/** The line of an event, as `[label, text]`; `over` says whether the chain has ended (so what is unanswered stays so). */
export function describeEvent(e: AuditEvent, over: boolean): [string, string] | undefined {
  switch (e.kind) {
    case 'run_started':
    case 'signal':
    case 'update':
      return undefined;
    case 'delegation':
      return [
        'delegate',
        `${e.from ? `${e.from} ` : ''}starts ${e.to} (chain ${e.childWorkflowId}): ${quoted(e.task.split('\n')[0] ?? '', 60)}`,
      ];
    case 'delegation_ended':
      return [
        'delegate',
        e.outcome === 'completed'
          ? `${e.to} answered${e.from ? ` ${e.from}` : ''}: ${shownValue(e.output, 100)}`
          : `${e.to} ${e.outcome.replace(/_/g, ' ')}${e.error && e.error !== e.outcome.replace(/_/g, ' ') ? `: ${clip(e.error, ERROR_WIDTH)}` : ''}`,
      ];
    case 'team_snapshot':
      return ['team', `snapshot${e.team ? ` ${e.team}` : ''}: ${e.agents.join(', ')}`];
    case 'live':
      return ['live', liveLine(e.record)];
    case 'team_changed':
      return [
        'team',
        `${e.from} → ${e.to} before turn ${e.beforeTurn} (${e.by === 'migration' ? 'migrated on replay' : `upgraded${e.deployment ? ` on ${e.deployment}` : ''}`})`,
      ];
    case 'model_turn': {
      const did =
        e.toolCalls && e.toolCalls.length > 0
          ? `→ ${e.toolCalls.map((c) => c.name).join(', ')}`
          : e.content == null
            ? ''
            : e.content.trim() === ''
              ? '→ empty answer'
              : '→ answer';
      const tokens = e.inputTokens !== undefined ? `, ${e.inputTokens} in / ${e.outputTokens} out` : '';
      return [
        e.agent,
        `model ${e.model} ${did} (${e.execution.latencyMs ?? '?'} ms${tokens}${attempts(e.execution)})${ended(e.execution)}`,
      ];
    }
    case 'tool_call': {
      const call = `tool ${e.tool}(${clip(e.arguments, 60)})`;
      const unanswered = over ? 'its answer never reached the model: the run ended first' : 'waiting for its answer';
      if (e.answeredBy === 'workflow') {
        // A specialist's answer (or failure) comes back as the delegation call's answer.
        if (e.tool === DELEGATE_TOOL_NAME || e.tool === SPECIALIST_DELEGATE_TOOL_NAME)
          return [e.agent, `${call} → ${e.result !== undefined ? quoted(e.result, ERROR_WIDTH) : unanswered}`];
        return [
          e.agent,
          `${call} → ${e.result !== undefined ? `answered by baton: ${clip(e.result, ERROR_WIDTH)}` : unanswered}`,
        ];
      }
      const x = e.execution ?? { status: 'not_scheduled', attempts: 0 };
      if (x.status === 'not_scheduled') {
        // baton's answers to calls it did not run say so ("Not run: …").
        if (e.result !== undefined)
          return [
            e.agent,
            `${call} → ${/^not run/i.test(e.result) ? '' : 'not run; baton answered: '}${clip(e.result, ERROR_WIDTH)}`,
          ];
        return [e.agent, `${call} ${over ? 'not run: the run ended first' : 'not run yet'}`];
      }
      const out = e.result !== undefined ? ` → ${e.ok === false ? 'error ' : ''}${clip(e.result, 60)}` : '';
      const edited =
        e.requestedArguments !== undefined ? ` [edited at approval from ${clip(e.requestedArguments, 60)}]` : '';
      return [e.agent, `${call}${out} (${x.latencyMs ?? '?'} ms${attempts(x)})${ended(x)}${edited}`];
    }
    case 'handoff_requested':
      return [e.from, `asks to hand off to ${e.to || '?'}: ${quoted(e.message, 70)} → ${outcome(e)}`];
    case 'workflow_message':
      return [e.agent, `told by baton: ${quoted(e.content, 100)}`];
    case 'approval_requested':
    case 'approval_decided':
    case 'approval_overdue':
    case 'approval_reminded':
    case 'approval_escalated':
    case 'approval_vote':
    case 'approval_stage':
    case 'delegated':
    case 'decision_refused':
    case 'approval_asked':
    case 'approval_answered':
    case 'question_refused':
    case 'report_refused':
      return approvalLine(e);
    case 'control':
      return controlLine(controlOf(e));
    case 'handoff': {
      const how = e.approval
        ? e.approval.outcome === 'timed_out'
          ? ' (approved on timeout)'
          : ` (${e.approval.outcome}${e.approval.approver ? ` by ${sender(e.approval.approver, e.approval.identity)}` : ''})`
        : '';
      const t = e.transfer;
      const gave = t
        ? `; ${e.to} got ${t.context} context, ${t.input} input${t.filters.length > 0 ? `, ${t.filters.join(', ')}` : ''} (${t.messages.length} messages)`
        : '';
      const update = e.update ? `; state update ${clip(JSON.stringify(e.update), 60)}` : '';
      return ['handoff', `#${e.index} ${e.from} → ${e.to}${how}${gave}${update}`];
    }
    case 'workflow_task_failed':
      return [
        'task',
        `workflow task failed${e.cause ? ` (${e.cause.replace('WORKFLOW_TASK_FAILED_CAUSE_', '').toLowerCase()})` : ''}: ${clip(e.message, ERROR_WIDTH)}`,
      ];
    case 'final_answer':
      return [
        'answer',
        `${e.agent}: ${typeof e.output === 'string' ? quoted(e.output, 100) : clip(JSON.stringify(e.output) ?? '', 100)}`,
      ];
    case 'failed':
      return ['failed', `${e.type ?? 'Error'}: ${clip(e.message, ERROR_WIDTH)}`];
    case 'terminated':
      return ['terminated', clip(e.reason ?? '', ERROR_WIDTH)];
    case 'replayed_from':
      return ['replay', `from run ${e.baseRunId}: ${clip(e.reason, ERROR_WIDTH)}`];
    case 'routing_decided':
      return [
        e.from,
        `asks for a ${e.specialistType} specialist: ${e.chosen} by ${e.strategy.replace(/_/g, ' ')} among ${e.candidates.join(', ')}: ${clip(e.reason, ERROR_WIDTH)}`,
      ];
    case 'overrides_applied':
      return ['overrides', `applied: ${clip(JSON.stringify({ options: e.options, models: e.models }), ERROR_WIDTH)}`];
    case 'overrides_refused':
      return ['overrides', `refused: ${clip(e.problems.join('; '), ERROR_WIDTH)}`];
    case 'policy_updated':
      return ['policy', `${e.from} → ${e.to} applied by ${e.appliedBy}: ${clip(e.tightened.join('; '), ERROR_WIDTH)}`];
    case 'cancelled':
    case 'timed_out':
    case 'continued_as_new':
      return [e.kind.replace(/_/g, ' '), ''];
  }
}

/** The {@link ControlEvent} an audit's `control` event records. */
function controlOf(e: ControlAuditEvent): ControlEvent {
  const {
    kind: _kind,
    control,
    at: _at,
    runId: _runId,
    ...fields
  } = e as ControlAuditEvent & { at?: string; runId?: string };
  return { kind: control, ...fields } as ControlEvent;
}

const clock = (iso: string) => iso.slice(11, 19);

/**
 * What a control did, as a timeline line (a label and the text): `loop` `triage → billing refused
 * as a loop (triage → billing → triage → billing)`, `breaker` `billing opened after 3 failures
 * until 12:01:00`, `guardrail` `refunds output "pii" tripped: …`, `budget` `tokens 10412 of 10000
 * used (refunds)`. `baton run` prints the same words as it follows a chain.
 */
export function controlLine(c: ControlEvent): [string, string] {
  switch (c.kind) {
    case 'loop_detected':
      // Not refused means the loop failed the run (`onLoop: 'fail'`, or no refusals left).
      return [
        'loop',
        `${c.from} → ${c.to} ${c.refused ? 'refused as a loop, the model is told' : 'is a loop → the run fails'} (${c.cycle.join(' → ')})${c.pattern === 'oscillation' ? ', bouncing with no progress' : ''}`,
      ];
    case 'target_failed':
      return ['breaker', `${c.agent} failed: ${clip(c.reason, ERROR_WIDTH)}`];
    case 'breaker_opened':
      return [
        'breaker',
        `${c.agent} opened after ${c.failures} failure${c.failures === 1 ? '' : 's'} until ${clock(c.until)}`,
      ];
    case 'breaker_half_open':
      return ['breaker', `${c.agent} half-open: the next handoff to it is a trial`];
    case 'breaker_closed':
      return ['breaker', `${c.agent} closed: it works again`];
    case 'breaker_refused':
      return [
        'breaker',
        `${c.from} → ${c.agent} refused: its breaker is open until ${clock(c.until)}; ${c.from} is told`,
      ];
    case 'guardrail_tripped':
      return [
        'guardrail',
        `${c.agent} ${c.stage} ${JSON.stringify(c.guardrail)} tripped: ${clip(c.reason, ERROR_WIDTH)}${c.onTrip === 'fail' ? ' → the run fails' : ' → the agent is told and tries again'}`,
      ];
    case 'budget_exceeded': {
      const amount =
        c.budget === 'deadline'
          ? `${Math.round(c.used / 1000)} s of ${Math.round(c.limit / 1000)} s`
          : `${c.used} of ${c.limit}`;
      return [
        'budget',
        `${c.budget} ${amount} used (${c.agent})${c.onBudgetExceeded === 'final_answer' ? ` → ${c.agent} answers now, without tools` : ' → the run fails'}`,
      ];
    }
    default:
      return ['control', clip(JSON.stringify(c), ERROR_WIDTH)];
  }
}

/**
 * How a handoff request ended, in words, with what the model was told when it did not happen. One
 * that waited for approval says so: the approval's lines after it tell how it was decided.
 */
function outcome(e: HandoffRequestedEvent): string {
  const told = e.answer !== undefined ? `: ${clip(e.answer, ERROR_WIDTH)}` : '';
  if (e.handoffId !== undefined) return `waits for approval (${e.handoffId})`;
  switch (e.outcome) {
    case HandoffRequestOutcome.EXECUTED:
      return `executed${e.index !== undefined ? ` (#${e.index})` : ''}`;
    case HandoffRequestOutcome.AWAITING_APPROVAL:
      return `awaiting approval (${e.handoffId})`;
    case HandoffRequestOutcome.IGNORED:
      return 'ignored: only the first handoff of a turn counts';
    case HandoffRequestOutcome.INVALID_ARGUMENTS:
      return `invalid arguments${told || (e.reason ? `: ${clip(e.reason, ERROR_WIDTH)}` : '')}`;
    case HandoffRequestOutcome.PENDING:
      return 'not acted on yet';
    default:
      return `${e.outcome.replace(/_/g, ' ')}${told || (e.reason ? `: ${clip(e.reason, ERROR_WIDTH)}` : '')}`;
  }
}
