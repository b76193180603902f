/**
 * A page of the hooks of `baton-agents/react` and nothing else, for test/react/hooks.test.ts: the
 * chain `?run=` followed with `useRun`, and the inbox (`usePendingApprovals`) with a decision
 * button on every approval (`useApprove`), those the caller may not decide too, to see the refusal.
 */
import { createRoot } from 'react-dom/client';
import { BatonProvider, useApprove, usePendingApprovals, useRun } from 'baton-agents/react';

function Run({ id }: { id: string }) {
  const run = useRun(id);
  return (
    <section aria-label="Run" data-status={run.status}>
      <p data-testid="status">{run.status}</p>
      <ol aria-label="Events">
        {run.events.map((e, i) => (
          <li key={i}>{e.kind}</li>
        ))}
      </ol>
      <p data-testid="text">{run.text}</p>
      <ol aria-label="Calls">
        {run.calls.map((c) => (
          <li key={`${c.workflowId} ${c.call}`}>
            {c.call}: {c.text}
          </li>
        ))}
      </ol>
      {run.result && <p data-testid="output">{String(run.result.output)}</p>}
      {run.error && <p data-testid="run-error">{run.error.message}</p>}
    </section>
  );
}

function Inbox() {
  const { approvals, loading, refresh } = usePendingApprovals({ intervalMs: 500 });
  const { decide, error } = useApprove();
  return (
    <section aria-label="Inbox" data-loading={loading}>
      <ul>
        {approvals.map((a) => (
          <li key={a.approvalId} aria-label={a.to} data-can-decide={a.canDecide}>
            {a.from} → {a.to}
            <button
              type="button"
              onClick={() =>
                void decide(a, 'approve', { comment: 'from the hooks page' }).then(refresh, () => undefined)
              }
            >
              Approve
            </button>
          </li>
        ))}
      </ul>
      {error && <p data-testid="decide-error">{error.message}</p>}
    </section>
  );
}

const token = decodeURIComponent(/token=([^&]+)/.exec(location.hash)?.[1] ?? '');
const run = new URLSearchParams(location.search).get('run') ?? undefined;
createRoot(document.getElementById('root')!).render(
  <BatonProvider url="" token={token}>
    {run && <Run id={run} />}
    <Inbox />
  </BatonProvider>,
);
