/**
 * A conversation's audit for people (`baton audit` on a conversation): each turn's message, the
 * handoffs, approvals and controls of its steps, its answer or failure; the team changes, policy
 * updates, live records and compactions between and within turns; what waits, and how it ended.
 */
import { displayText } from '../common/display';
import type { ConversationAudit, PolicyUpdateAudit } from './conversation';
import { describeEvent } from './format';
import { liveLine, turnOf } from './live';

/** The conversation as a terminal reads it: each turn's message, handoffs, approvals and answer. */
export function formatConversation(a: ConversationAudit): string {
  const lines = [
    `conversation ${a.workflowId}: ${a.status}, ${a.turns.length} turn${a.turns.length === 1 ? '' : 's'}, ${a.runIds.length} run${a.runIds.length === 1 ? '' : 's'}`,
  ];
  const compactions = [...a.compactions];
  const changes = [...(a.teamChanges ?? [])];
  // Policy updates between turns; those during a turn are among its steps.
  const policies = (a.policyUpdates ?? []).filter((p) => p.duringTurn === undefined);
  const policyLine = (p: PolicyUpdateAudit) =>
    `      ⚖ policy ${p.from} → ${p.to} applied by ${p.appliedBy} ${p.afterTurn === 0 ? 'before the first turn' : `after turn ${p.afterTurn}`}: ${clip(p.tightened.join('; '))}`;
  for (const t of a.turns) {
    while (changes[0] && changes[0].beforeTurn <= t.turn) {
      const c = changes.shift()!;
      lines.push(
        `      ⇄ team ${c.from} → ${c.to} ${c.by === 'migration' ? 'by migration ' : ''}before turn ${c.beforeTurn}${c.deployment ? ` (on ${c.deployment})` : ''}`,
      );
    }
    while (policies[0] && policies[0].afterTurn < t.turn) lines.push(policyLine(policies.shift()!));
    lines.push(
      `#${t.turn}  ${t.startedAt.slice(11, 23)}  you → ${t.agent}: ${clip(t.message ?? '(message not in history)')}`,
    );
    if (t.stranded)
      lines.push(
        `      waited for a worker of team ${t.stranded.version}: ${t.stranded.step} needs ${clip(t.stranded.missing.join('; '))} (workers on ${t.stranded.worker})`,
      );
    // Approvals, handoffs and controls in the order they happened, each saying what it did.
    for (const step of t.steps) {
      const line = describeEvent(step, t.status !== 'answering');
      if (line)
        lines.push(`      ${line[0].padEnd(10)} ${line[1]}${step.kind === 'handoff' ? `: ${clip(step.message)}` : ''}`);
    }
    if (t.status === 'answered')
      lines.push(`      ${t.answeredBy}: ${clip(typeof t.output === 'string' ? t.output : JSON.stringify(t.output))}`);
    else if (t.status === 'failed') lines.push(`      failed: ${t.failure?.type}: ${clip(t.failure?.message ?? '')}`);
    else lines.push('      … being answered');
    for (const r of (a.live ?? []).filter((x) => turnOf(x) === t.turn)) lines.push(`      ${liveLine(r)}`);
    while (compactions[0] && compactions[0].afterTurn <= t.turn) {
      const c = compactions.shift()!;
      lines.push(
        `      ⇊ ${c.agent}'s conversation compacted: ${c.summarizedMessages} messages summarized, ${c.keptMessages} kept (~${c.tokensBefore} → ~${c.tokensAfter} tokens)`,
      );
    }
  }
  for (const p of policies) lines.push(policyLine(p));
  for (const w of a.waiting) lines.push(`waiting: ${clip(w.message)}`);
  if (a.result)
    lines.push(
      `ended (${a.result.endedBy === 'idle_timeout' ? 'idle timeout' : 'on request'}) with ${a.result.agent} active`,
    );
  if (a.failure) lines.push(`failed: ${a.failure.type ?? 'Error'}: ${a.failure.message}`);
  // Each entry is one line of the page: whatever it holds from outside stays on it, visible.
  return lines.map(displayText).join('\n');
}

function clip(text: string, max = 100): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
