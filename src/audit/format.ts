import type { AuditChain, AuditEvent } from './chain';

const clip = (text: string, n = 80) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
};
const time = (iso: string) => iso.slice(11, 23);
const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const attempts = (n: number) => (n > 1 ? `, ${n} attempts` : '');

/** A readable timeline of the chain for a terminal. */
export function formatTimeline(chain: AuditChain): string {
  const head = [
    `chain ${chain.workflowId}: ${chain.status}${chain.runIds.length > 1 ? ` (${chain.runIds.length} runs)` : ''}`,
    chain.input ? `input: ${chain.input.agent} ← ${JSON.stringify(clip(chain.input.input, 100))}` : undefined,
  ].filter(Boolean);
  const lines = chain.events.flatMap((e) => {
    const line = describe(e);
    return line ? [`${time(e.at)}  ${pad(line[0], 10)} ${line[1]}`] : [];
  });
  return [...head, ...lines].join('\n');
}

function describe(e: AuditEvent): [string, string] | undefined {
  switch (e.kind) {
    case 'run_started':
      return undefined;
    case 'team_snapshot':
      return ['team', `snapshot: ${e.agents.join(', ')}`];
    case 'model_turn': {
      const did = e.toolCalls && e.toolCalls.length > 0 ? `→ ${e.toolCalls.map((c) => c.name).join(', ')}` : e.content != null ? `→ answer` : '';
      const tokens = e.inputTokens !== undefined ? `, ${e.inputTokens} in / ${e.outputTokens} out` : '';
      const end = e.execution.status === 'completed' ? '' : ` [${e.execution.status}${e.execution.error ? `: ${e.execution.error}` : ''}]`;
      return [e.agent, `model ${e.model} ${did} (${e.execution.latencyMs ?? '?'} ms${tokens}${attempts(e.execution.attempts)})${end}`];
    }
    case 'tool_call': {
      const out = e.result !== undefined ? ` → ${e.ok === false ? 'error ' : ''}${clip(e.result, 60)}` : '';
      const end = e.execution.status === 'completed' ? '' : ` [${e.execution.status}${e.execution.error ? `: ${e.execution.error}` : ''}]`;
      return [e.agent, `tool ${e.tool}(${clip(e.arguments, 60)})${out} (${e.execution.latencyMs ?? '?'} ms${attempts(e.execution.attempts)})${end}`];
    }
    case 'handoff_requested':
      return [e.from, `asks to hand off to ${e.to}: ${JSON.stringify(clip(e.message, 70))}`];
    case 'approval_requested':
      return ['approval', `asked for ${e.from} → ${e.to} (${e.handoffId})${e.approvers ? `, approvers ${e.approvers.join(', ')}` : ''}${e.expiresAt ? `, expires ${time(e.expiresAt)}` : ''}`];
    case 'approval_decided':
      return [
        'approval',
        e.outcome === 'timed_out'
          ? `timed out (${e.handoffId})`
          : `${e.outcome} by ${e.approver} via ${e.via}${e.comment ? `: ${JSON.stringify(e.comment)}` : ''}${e.reason ? `: ${JSON.stringify(e.reason)}` : ''}`,
      ];
    case 'decision_refused':
      return ['approval', `refused ${e.decision ?? 'decision'} from ${e.approver ?? '?'} (${e.via}): ${e.reason}`];
    case 'signal':
    case 'update':
      return undefined;
    case 'handoff':
      return ['handoff', `#${e.index} ${e.from} → ${e.to}${e.approval ? ` (${e.approval.outcome}${e.approval.approver ? ` by ${e.approval.approver}` : ''})` : ''}`];
    case 'final_answer':
      return ['answer', `${e.agent}: ${JSON.stringify(clip(e.output, 100))}`];
    case 'failed':
      return ['failed', `${e.type ?? 'Error'}: ${e.message}`];
    case 'terminated':
      return ['terminated', e.reason ?? ''];
    case 'cancelled':
    case 'timed_out':
    case 'continued_as_new':
      return [e.kind.replace(/_/g, ' '), ''];
  }
}

const label = (text: string) => `"${text.replace(/"/g, '#quot;')}"`;

/** A Mermaid flowchart of the handoffs: executed ones solid and numbered, rejected ones dashed. */
export function toMermaid(chain: AuditChain): string {
  const lines = ['flowchart LR'];
  const start = chain.input?.agent ?? chain.handoffs[0]?.from;
  if (start) lines.push(`  input([input]) --> ${start}`);
  let n = 0;
  for (const e of chain.events) {
    if (e.kind === 'handoff') {
      n++;
      const how = e.approval ? ` · ${e.approval.outcome === 'timed_out' ? 'approved on timeout' : `approved by ${e.approval.approver}`}` : '';
      lines.push(`  ${e.from} -->|${label(`${n}${how}`)}| ${e.to}`);
    } else if (e.kind === 'approval_decided' && e.outcome !== 'approved') {
      const req = chain.events.find((r) => r.kind === 'approval_requested' && r.handoffId === e.handoffId);
      if (req?.kind === 'approval_requested') {
        const why = e.outcome === 'rejected' ? `rejected by ${e.approver}` : 'not approved in time';
        lines.push(`  ${req.from} -.->|${label(why)}| ${req.to}`);
      }
    }
  }
  if (chain.result) lines.push(`  ${chain.result.finalAgent} --> answer([answer])`);
  if (chain.failure) {
    const last = chain.handoffs.at(-1)?.to ?? start;
    if (last) lines.push(`  ${last} --> failed[[${label(`${chain.failure.type ?? 'failed'}`)}]]`);
  }
  return lines.join('\n');
}
