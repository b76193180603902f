/**
 * The approvals inbox beside the chat: every handoff and tool call waiting for a decision that the
 * signed-in identity may see, in any conversation or chain (`usePendingApprovals`), decided here as
 * that identity (`useApprove`) when it is among the approvers — the manager's refunds, say.
 */
import { useState } from 'react';
import { useApprove, usePendingApprovals, type PendingApproval } from 'baton-agents/react';

export function Inbox({ conversationId, defaultOpen }: { conversationId: string; defaultOpen: boolean }) {
  const { approvals, loading, error, refresh } = usePendingApprovals();
  const { decide, deciding, error: refused } = useApprove();
  const [open, setOpen] = useState(defaultOpen);
  const mine = approvals.filter((a) => a.canDecide).length;
  const onDecide = async (approval: PendingApproval, decision: 'approve' | 'reject', comment: string) => {
    await decide(approval, decision, comment ? { comment } : {}).catch(() => undefined);
    await refresh();
  };
  return (
    <aside className="inbox" aria-label="Approvals">
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>
          Approvals <span className="count">{loading ? '…' : approvals.length}</span>
          {mine > 0 && <span className="yours">{mine} yours to decide</span>}
        </summary>
        {/* A closed panel holds nothing: the page keeps no hidden box for it. */}
        {open && (
          <div className="inbox-body">
            {error && (
              <p role="alert" className="error">
                {error.message}
              </p>
            )}
            {refused && (
              <p role="alert" className="error">
                {refused.message}
              </p>
            )}
            {!loading && approvals.length === 0 && <p className="muted">Nothing waits for a decision.</p>}
            <ul>
              {approvals.map((a) => (
                <Waiting
                  key={a.approvalId}
                  approval={a}
                  here={a.workflowId === conversationId}
                  busy={deciding.has(a.approvalId)}
                  onDecide={(d, c) => void onDecide(a, d, c)}
                />
              ))}
            </ul>
          </div>
        )}
      </details>
    </aside>
  );
}

function Waiting({
  approval: a,
  here,
  busy,
  onDecide,
}: {
  approval: PendingApproval;
  here: boolean;
  busy: boolean;
  onDecide: (decision: 'approve' | 'reject', comment: string) => void;
}) {
  const [comment, setComment] = useState('');
  const what = a.tool ? `${a.tool.name}` : `Handoff ${a.from} → ${a.to}`;
  return (
    <li className="waiting-item" aria-label={what}>
      <p className="item-head">
        <strong>{what}</strong>
        {here && <span className="tag">this chat</span>}
      </p>
      {a.tool ? (
        <pre>{JSON.stringify(a.tool.arguments, null, 1).replace(/^\{\n|\n\}$/g, '')}</pre>
      ) : (
        <p className="muted">{a.message}</p>
      )}
      <p className="muted small">
        {a.from} asks · {a.approvers?.length ? `decided by ${a.approvers.join(', ')}` : 'any approver'} ·{' '}
        {minutes(a.ageMs)}
      </p>
      {a.canDecide ? (
        <>
          <input
            aria-label={`Comment on ${what}`}
            placeholder="Comment (optional)"
            value={comment}
            onChange={(e) => setComment(e.target.value)}
          />
          <div className="actions">
            <button type="button" className="approve" disabled={busy} onClick={() => onDecide('approve', comment)}>
              Approve
            </button>
            <button type="button" className="reject" disabled={busy} onClick={() => onDecide('reject', comment)}>
              Reject
            </button>
          </div>
        </>
      ) : (
        <p className="muted small">Not yours to decide.</p>
      )}
    </li>
  );
}

function minutes(ms: number): string {
  const m = Math.floor(ms / 60_000);
  return m < 1 ? 'just now' : `${m} min ago`;
}
