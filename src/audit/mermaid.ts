/**
 * The chain as a Mermaid flowchart: handoffs that happened as solid numbered edges, handoffs asked
 * for but not executed as dashed edges labelled with how they ended.
 */
import { displayText } from '../common/display';
import { HandoffRequestOutcome, type AuditChain, type AuditEvent, type HandoffRequestedEvent } from './types';

/** A label of the diagram: text from outside (an approver's name, a model's target) neutralised, so it cannot end the label's line or reorder it. */
const label = (text: string) => `"${displayText(text).replace(/"/g, '#quot;')}"`;

/**
 * A node id Mermaid accepts for an agent id (ids come from teams and from models' arguments);
 * `scope` keeps the agents of a specialist's chain apart from the same agents elsewhere.
 */
function nodeIn(scope: string, id: string): string {
  if (!scope && /^[A-Za-z_][\w-]*$/.test(id) && !/^(end|graph|subgraph|flowchart|style|class|click|default)$/i.test(id))
    return id;
  const safe = id.replace(/[^\w]/g, (c) => `_${c.codePointAt(0)!.toString(16)}_`);
  return `${scope || 'agent_'}${safe}[${label(id)}]`;
}

/** A Mermaid flowchart of the handoffs: executed ones solid and numbered, the others dashed; specialists' chains as subgraphs. */
export function toMermaid(chain: AuditChain): string {
  return ['flowchart LR', ...flow(chain, '')].join('\n');
}

function flow(chain: AuditChain, scope: string): string[] {
  const node = (id: string) => nodeIn(scope, id);
  const lines: string[] = [];
  const start = chain.input?.agent ?? chain.handoffs[0]?.from;
  if (start && !scope) lines.push(`  input([input]) --> ${node(start)}`);
  let delegations = 0;
  for (const e of chain.events) {
    if (e.kind === 'delegation') {
      const child = chain.children?.find((c) => c.workflowId === e.childWorkflowId);
      const inner = `${scope}d${++delegations}_`;
      if (e.from) lines.push(`  ${node(e.from)} -.->|${label(`delegates · ${e.outcome}`)}| ${nodeIn(inner, e.to)}`);
      if (child)
        lines.push(
          `  subgraph ${inner}box [${label(`${e.to} · ${child.workflowId}`)}]`,
          ...flow(child, inner),
          '  end',
        );
      continue;
    }
    if (e.kind === 'handoff') {
      const how = e.approval
        ? ` · ${e.approval.outcome === 'timed_out' ? 'approved on timeout' : `approved by ${e.approval.approver}`}`
        : '';
      lines.push(`  ${node(e.from)} -->|${label(`${e.index}${how}`)}| ${node(e.to)}`);
    } else if (e.kind === 'handoff_requested' && e.outcome !== HandoffRequestOutcome.EXECUTED) {
      lines.push(
        `  ${node(e.from)} -.->|${label(notExecuted(e, chain.events))}| ${e.to ? node(e.to) : 'no_target(("?"))'}`,
      );
    }
  }
  if (chain.result) lines.push(`  ${node(chain.result.finalAgent)} --> ${scope}answer([answer])`);
  if (chain.failure) {
    const last = [...chain.events].reverse().find((e) => e.kind === 'model_turn');
    const agent = last?.kind === 'model_turn' ? last.agent : (chain.handoffs.at(-1)?.to ?? start);
    if (agent) lines.push(`  ${node(agent)} --> ${scope}failed[[${label(`${chain.failure.type ?? 'failed'}`)}]]`);
  }
  return lines;
}

function notExecuted(e: HandoffRequestedEvent, events: AuditEvent[]): string {
  const decided = events.find((d) => d.kind === 'approval_decided' && d.handoffId === e.handoffId);
  switch (e.outcome) {
    case HandoffRequestOutcome.REJECTED:
      return decided?.kind === 'approval_decided' && decided.approver ? `rejected by ${decided.approver}` : 'rejected';
    case HandoffRequestOutcome.TIMED_OUT:
      return 'not approved in time';
    case HandoffRequestOutcome.IGNORED:
      return 'ignored: second handoff of a turn';
    default:
      return e.outcome.replace(/_/g, ' ');
  }
}
