/**
 * The approvals inbox for React: what waits for a decision across chains and conversations
 * (`GET /v1/approvals`, read again every few seconds), and deciding one as the caller
 * (`POST /v1/runs/{id}/approvals/{approvalId}`), under the approval's rules on the service.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { batonFetch, useBatonConnection } from './connection';

/** A handoff or tool call waiting for a decision, as `GET /v1/approvals` gives it (the OpenAPI schema `PendingApproval`). */
export interface PendingApproval {
  /** The chain or conversation it waits in. */
  workflowId: string;
  runId: string;
  /** What a decision names it by. */
  approvalId: string;
  /** The agent asking, and the agent it hands off to (`tool:<name>` for a tool call). */
  from: string;
  to: string;
  /** The handoff's message (or the tool call, in words). */
  message: string;
  requestedAt: string;
  expiresAt?: string;
  /** Who may decide it (anyone who may decide approvals when unset). */
  approvers?: string[];
  /** Set when a tool call waits: its name, its arguments, and the hash a decision sends back. */
  tool?: {
    name: string;
    arguments: Record<string, unknown>;
    argumentsText: string;
    toolCallId: string;
    callHash: string;
  };
  /** Whether the caller may decide it. */
  canDecide: boolean;
  ageMs: number;
  [field: string]: unknown;
}

/** How an approval ended, as the service answers a decision (the OpenAPI schema `ApprovalRecord`). */
export interface ApprovalRecord {
  handoffId: string;
  outcome: string;
  approver?: string;
  comment?: string;
  reason?: string;
  decidedAt: string;
  [field: string]: unknown;
}

/** Options of {@link usePendingApprovals}. */
export interface PendingApprovalsOptions {
  /** How often to read the list again. @default 2000 */
  intervalMs?: number;
}

/** What {@link usePendingApprovals} gives. */
export interface PendingApprovalsView {
  /** What waits, oldest first; empty until the first read. */
  approvals: PendingApproval[];
  /** True until the first read answers. */
  loading: boolean;
  /** Why the last read failed (a `BatonRequestError`); cleared by the next read that works. */
  error?: Error;
  /** Read the list now (after a decision, say). */
  refresh: () => Promise<void>;
}

/**
 * The approvals inbox: every handoff and tool call waiting for approval that the caller may see,
 * read when the component mounts and every `intervalMs`.
 * @example const { approvals, refresh } = usePendingApprovals();
 */
export function usePendingApprovals(options: PendingApprovalsOptions = {}): PendingApprovalsView {
  const connection = useBatonConnection('usePendingApprovals');
  const intervalMs = options.intervalMs ?? 2000;
  const [state, setState] = useState<Omit<PendingApprovalsView, 'refresh'>>({ approvals: [], loading: true });
  // Reads overlap (a refresh during a periodic read): only the latest one's answer is shown.
  const latest = useRef(0);
  const refresh = useCallback(async () => {
    const read = ++latest.current;
    try {
      const { approvals } = (await (await batonFetch(connection, '/v1/approvals')).json()) as {
        approvals: PendingApproval[];
      };
      if (read === latest.current) setState({ approvals, loading: false });
    } catch (err) {
      if (read === latest.current) setState((s) => ({ ...s, loading: false, error: err as Error }));
    }
  }, [connection]);
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), intervalMs);
    return () => {
      clearInterval(timer);
      // An answer arriving after unmount is dropped.
      latest.current += 1;
    };
  }, [refresh, intervalMs]);
  return { ...state, refresh };
}

/** What a decision adds. */
export interface DecideOptions {
  /** Recorded with the decision; the reason the agent is told on a rejection. */
  comment?: string;
  /** A tool call's approval only: run it with these arguments instead of the model's. */
  arguments?: Record<string, unknown>;
}

/** What {@link useApprove} gives. */
export interface ApproveView {
  /** Approve or reject `approval` as the caller; resolves to how it ended, rejects with a `BatonRequestError` saying why it was refused. */
  decide: (
    approval: Pick<PendingApproval, 'workflowId' | 'approvalId' | 'tool'>,
    decision: 'approve' | 'reject',
    options?: DecideOptions,
  ) => Promise<ApprovalRecord>;
  /** The ids of the approvals being decided now. */
  deciding: ReadonlySet<string>;
  /** Why the last decision was refused; cleared by the next one. */
  error?: Error;
}

/**
 * Decide approvals as the caller (the token's identity, within the approval's approvers). A tool
 * call's decision sends the call's hash, so a decision meant for a call that changed since is refused.
 * @example const { decide } = useApprove(); await decide(approval, 'approve', { comment: 'ok' });
 */
export function useApprove(): ApproveView {
  const connection = useBatonConnection('useApprove');
  const [deciding, setDeciding] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<Error>();
  const decide = useCallback<ApproveView['decide']>(
    async (approval, decision, options = {}) => {
      const id = approval.approvalId;
      setDeciding((s) => new Set(s).add(id));
      setError(undefined);
      try {
        const body = { decision, ...options, ...(approval.tool ? { callHash: approval.tool.callHash } : {}) };
        const path = `/v1/runs/${encodeURIComponent(approval.workflowId)}/approvals/${encodeURIComponent(id)}`;
        const response = await batonFetch(connection, path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return (await response.json()) as ApprovalRecord;
      } catch (err) {
        setError(err as Error);
        throw err;
      } finally {
        setDeciding((s) => {
          const next = new Set(s);
          next.delete(id);
          return next;
        });
      }
    },
    [connection],
  );
  return { decide, deciding, ...(error ? { error } : {}) };
}
