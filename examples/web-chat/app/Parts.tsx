/**
 * An assistant message as the chat shows it: what each agent said, their tool calls, handoffs,
 * approvals (a card to decide when the person chatting may, a waiting note when someone else
 * must) and failures — the parts of baton's UI message stream (docs/apps.md).
 */
import { getToolName, isToolUIPart, type UIMessage } from 'ai';
import { useState } from 'react';

type Part = UIMessage['parts'][number];
type ToolPart = Extract<Part, { toolCallId: string }>;

/** What a `data-approval` part holds (its waiting fields, then its decision merged in). */
interface ApprovalData {
  approvalId: string;
  kind: 'tool' | 'handoff';
  status: string;
  from: string;
  to: string;
  tool?: string;
  arguments?: Record<string, unknown>;
  approvers?: string[];
  decidable?: boolean;
  approver?: string;
  reason?: string;
}

/** The agent answering at the start of each message: the first agent, then whoever the last handoff went to. */
export function speakers(messages: UIMessage[], first: string): string[] {
  let agent = first;
  return messages.map((m) => {
    const at = agent;
    for (const p of m.parts) if (p.type === 'data-handoff') agent = String((p.data as { to?: unknown }).to ?? agent);
    return at;
  });
}

export function AssistantMessage({
  message,
  firstAgent,
  busy,
  onDecide,
}: {
  message: UIMessage;
  firstAgent: string;
  busy: boolean;
  onDecide: (approvalId: string, approved: boolean, reason?: string) => void;
}) {
  let agent = firstAgent;
  const items = message.parts.map((part, i) => {
    if (part.type === 'data-handoff') {
      const { from, to, approvedBy } = part.data as { from: string; to: string; approvedBy?: string };
      agent = to;
      return (
        <p key={i} className="handoff-line">
          <span>
            {title(from)} handed you to <strong>{title(to)}</strong>
            {approvedBy ? ` · approved by ${approvedBy}` : ''}
          </span>
        </p>
      );
    }
    if (part.type === 'text') {
      const speaker = agentOfCall(part.providerMetadata) ?? agent;
      return (
        <div key={i} className="said">
          <span className="agent">{title(speaker)}</span>
          <p className={`bubble${part.state === 'streaming' ? ' typing' : ''}`}>{part.text}</p>
        </div>
      );
    }
    if (isToolUIPart(part)) return <ToolStep key={i} part={part} onDecide={onDecide} />;
    if (part.type === 'data-approval') return <ApprovalNote key={i} data={part.data as ApprovalData} />;
    if (part.type === 'data-failure') {
      const { type, message: why } = part.data as { type?: string; message?: string };
      return (
        <p key={i} role="alert" className="error">
          The answer failed ({type}): {why}
        </p>
      );
    }
    if (part.type === 'data-control' || part.type === 'data-delegation') {
      return (
        <p key={i} className="note">
          {part.type.slice('data-'.length)}:{' '}
          {String((part.data as { kind?: unknown; to?: unknown }).kind ?? (part.data as { to?: unknown }).to ?? '')}
        </p>
      );
    }
    return null;
  });
  // Nobody is working while the answer waits for someone else's decision, or while its text streams in.
  const someoneElse = message.parts.some(
    (p) =>
      p.type === 'data-approval' &&
      (p.data as ApprovalData).status === 'waiting' &&
      !(p.data as ApprovalData).decidable,
  );
  const waiting = busy && !someoneElse && !message.parts.some((p) => p.type === 'text' && p.state === 'streaming');
  return (
    <>
      {items}
      {waiting && <p className="muted working">{title(agent)} is working…</p>}
    </>
  );
}

/** A tool call (the built-in handoff too): a card when the person chatting decides it, else a line saying where it is. */
function ToolStep({
  part,
  onDecide,
}: {
  part: ToolPart;
  onDecide: (approvalId: string, approved: boolean, reason?: string) => void;
}) {
  const name = getToolName(part);
  const what = describeCall(name, part.input);
  if (part.state === 'approval-requested')
    return (
      <ApprovalCard
        what={what}
        detail={name === 'handoff' ? (part.input as { message?: string })?.message : undefined}
        onDecide={(approved, reason) => onDecide(part.approval.id, approved, reason)}
      />
    );
  const state =
    part.state === 'approval-responded'
      ? part.approval.approved
        ? 'approved, going on…'
        : 'declined'
      : part.state === 'output-available'
        ? 'done'
        : part.state === 'output-denied'
          ? 'declined'
          : part.state === 'output-error'
            ? `failed: ${part.errorText}`
            : part.state === 'input-available'
              ? 'asked'
              : 'running…';
  // A handoff that happened shows as the line of who took over.
  if (name === 'handoff' && part.state === 'output-available') return null;
  return (
    <p className={`tool-line ${part.state}`}>
      <span className="tool-name">{what}</span> <span className="tool-state">{state}</span>
    </p>
  );
}

function ApprovalCard({
  what,
  detail,
  onDecide,
}: {
  what: string;
  detail?: string | undefined;
  onDecide: (approved: boolean, reason?: string) => void;
}) {
  const [reason, setReason] = useState('');
  return (
    <div className="card approval" role="group" aria-label={`Approval: ${what}`}>
      <p className="card-kicker">Your approval is needed</p>
      <p className="card-title">{what}</p>
      {detail && <blockquote>{detail}</blockquote>}
      <input
        aria-label="Comment (optional)"
        placeholder="Comment (optional)"
        value={reason}
        onChange={(e) => setReason(e.target.value)}
      />
      <div className="actions">
        <button type="button" className="approve" onClick={() => onDecide(true, reason || undefined)}>
          Approve
        </button>
        <button type="button" className="reject" onClick={() => onDecide(false, reason || undefined)}>
          Reject
        </button>
      </div>
    </div>
  );
}

/** An approval someone else decides while it waits, and every approval's decision. */
function ApprovalNote({ data }: { data: ApprovalData }) {
  const what =
    data.kind === 'tool'
      ? describeCall(data.tool ?? data.to.replace(/^tool:/, ''), data.arguments)
      : describeCall('handoff', { to: data.to });
  if (data.status === 'waiting') {
    if (data.decidable) return null;
    return (
      <div className="card waiting" role="status">
        <p className="card-kicker">
          Waiting for {data.approvers?.length ? data.approvers.join(' or ') : 'an approver'}
        </p>
        <p className="card-title">{what}</p>
        <p className="muted">The answer goes on once it is decided, here or on the approvals page.</p>
      </div>
    );
  }
  const approved = data.status === 'approved';
  // An approved handoff shows as the line of who took over, with who approved it.
  if (data.kind === 'handoff' && approved) return null;
  return (
    <p className={`decision ${approved ? 'yes' : 'no'}`}>
      {approved ? '✓' : '✗'} {what}: {data.status.replace('_', ' ')}
      {data.approver ? ` by ${data.approver}` : ''}
      {data.reason ? ` (${data.reason})` : ''}
    </p>
  );
}

/** A call in words, for the calls this team makes; others as their name and arguments. */
function describeCall(name: string, input: unknown): string {
  const args = (input ?? {}) as Record<string, unknown>;
  if (name === 'handoff') return `Hand over to ${title(String(args.to ?? '?'))}`;
  if (name === 'issueRefund') return `Refund $${Number(args.amount).toFixed(2)} for order ${String(args.orderId)}`;
  if (name === 'orders__lookupOrder') return `Look up order ${String(args.orderId)}`;
  return `${name}(${JSON.stringify(args)})`;
}

/** The agent of a text part: its call, `<agent>#<n>`, is in baton's provider metadata. */
function agentOfCall(metadata: unknown): string | undefined {
  const part = (metadata as { baton?: { part?: unknown } } | undefined)?.baton?.part;
  return typeof part === 'string' && part.includes('#') ? part.slice(0, part.indexOf('#')) : undefined;
}

function title(agent: string): string {
  return agent.charAt(0).toUpperCase() + agent.slice(1);
}
