/**
 * What the agents of a run are doing now, for the live line of `baton run` and `baton chat`: each
 * call under way with when it started, each approval waited for, and each delegation with what its
 * specialist is doing meanwhile ("triage waits for physics… 8.2 s: physics: model call… 2.1 s").
 */
import type { RunEvent } from '../client/runEvent';
import { displayText } from '../common/display';
import { approvalSubject, formatDelegation, formatHandoff } from './print';

interface Delegation {
  label: string;
  since: number;
  /** What the specialist's own chain is doing, from its events. */
  specialist: InFlight;
}

export class InFlight {
  readonly #calls: { agent: string; label: string; since: number }[] = [];
  readonly #approvals = new Map<string, { label: string; since: number }>();
  /** Delegations under way, by the specialist chain's workflow id. */
  readonly #delegations = new Map<string, Delegation>();

  apply(e: RunEvent): void {
    // The event's own time, so a call already under way when following starts shows how long it has run.
    const since = Math.min(Date.parse(e.at), Date.now());
    switch (e.kind) {
      case 'model_call':
        // An agent calls its model only once its earlier calls are over, answered or failed.
        this.end((c) => c.agent === e.agent);
        this.#calls.push({ agent: e.agent, label: `${e.agent}: model call`, since });
        break;
      case 'tool_call':
        this.#calls.push({ agent: e.agent, label: `${e.agent}: tool ${e.tool}`, since });
        break;
      case 'model_answered':
      case 'model_stopped':
        this.end((c) => c.label === `${e.agent}: model call`, 1);
        break;
      case 'tool_answered':
        this.end((c) => c.label === `${e.agent}: tool ${e.tool}`, 1);
        break;
      case 'handoff':
        this.end((c) => c.agent === e.handoff.from);
        break;
      case 'approval_requested':
        this.#approvals.set(e.approval.handoffId, {
          label: `${approvalSubject(e.approval)} waits for approval`,
          since,
        });
        break;
      case 'approval_decided':
        this.#approvals.delete(e.decision.handoffId);
        break;
      case 'delegation_started':
        this.#delegations.set(e.workflowId, {
          label: `${e.agent} waits for ${e.to}`,
          since,
          specialist: new InFlight(),
        });
        break;
      case 'specialist':
        this.#delegations.get(e.workflowId)?.specialist.apply(e.event);
        break;
      case 'delegation_ended':
        this.#delegations.delete(e.workflowId);
        break;
      case 'continued_as_new':
        this.clear();
        break;
      case 'control':
        // A control acting ends nothing under way: a refused handoff or a tripped guardrail goes back to the model.
        break;
      default:
        this.clear();
    }
  }

  /** `refunds: tool issueRefund… 1.1 s · …`, or `''` when nothing is under way. */
  describe(now: number): string {
    const delegations = [...this.#delegations.values()].map((d) => {
      const inner = d.specialist.describe(now);
      return `${d.label}… ${seconds(now - d.since)}${inner ? `: ${inner}` : ''}`;
    });
    return displayText(
      [
        ...this.#calls.map((c) => `${c.label}… ${seconds(now - c.since)}`),
        ...delegations,
        ...[...this.#approvals.values()].map((a) => `${a.label}… ${seconds(now - a.since)}`),
      ].join(' · '),
    );
  }

  private clear(): void {
    this.#calls.length = 0;
    this.#approvals.clear();
    this.#delegations.clear();
  }

  private end(match: (c: { agent: string; label: string }) => boolean, count = Infinity): void {
    for (let i = 0; i < this.#calls.length && count > 0;) {
      if (match(this.#calls[i]!)) {
        this.#calls.splice(i, 1);
        count -= 1;
      } else {
        i += 1;
      }
    }
  }
}

/**
 * A specialist's calls as lines, where there is no live line: `    physics: model call`, indented
 * once more for each level of delegation.
 */
export function specialistLines(e: Extract<RunEvent, { kind: 'specialist' }>, depth = 1): string[] {
  const inner = e.event;
  const indent = `  ${'  '.repeat(depth)}`;
  if (inner.kind === 'specialist') return specialistLines(inner, depth + 1);
  if (inner.kind === 'model_call') return [displayText(`${indent}${inner.agent}: model call`)];
  if (inner.kind === 'tool_call') return [displayText(`${indent}${inner.agent}: tool ${inner.tool}`)];
  if (inner.kind === 'handoff') return [`  ${'  '.repeat(depth)}${formatHandoff(inner.handoff).trimStart()}`];
  if (inner.kind === 'delegation_started' || inner.kind === 'delegation_ended')
    return [`  ${'  '.repeat(depth)}${formatDelegation(inner).trimStart()}`];
  return [];
}

function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}
