/** What the page reads from the service (the fields it uses; the OpenAPI document has them all). */
import type { Cost } from './dom';

/** A handoff of the chain so far. */
export interface Hop {
  from: string;
  to: string;
}

/** What a chain was asked, and by whom. */
export interface Asked {
  agent: string;
  input: string;
  truncated?: boolean;
  startedAt?: string;
  startedBy?: string;
  client?: string;
  parent?: { workflowId: string };
  /** A specialist's: what the customer first asked the top chain. */
  original?: Asked;
}

/** An approval that waits, as the inbox and a run list it. */
export interface Approval {
  workflowId: string;
  handoffId: string;
  from: string;
  to: string;
  message?: string;
  tool?: { name: string; callHash: string; arguments?: unknown; argumentsText?: string };
  approvers?: string[];
  canDecide?: boolean;
  requestedAt: string;
  expiresAt?: string;
  onTimeout?: string;
  requireSignature?: boolean;
  sensitive?: { revealed?: boolean; arguments: true | string[] };
  rootWorkflowId?: string;
  chain?: Hop[];
  request?: Asked;
  rejectionReasons?: { code: string; label: string }[];
  questions?: Question[];
}

/** A question asked about a waiting approval, and its answer once given. */
export interface Question {
  question: string;
  askedBy: string;
  askedAt: string;
  answer?: string;
  answeredBy?: string;
  answeredAt?: string;
}

/** A chain as `GET /v1/runs/{id}` answers. */
export interface RunView {
  status: string;
  currentAgent?: string;
  team?: string;
  chain: Hop[];
  usage: { modelCalls: number; toolCalls: number; totalTokens: number; cost?: Cost };
  input?: { agent: string; input: unknown; parent?: { workflowId: string } };
  startedAt?: string;
  startedBy?: string;
  pendingApprovals: (Omit<Approval, 'workflowId'> & { workflowId?: string })[];
  output?: unknown;
  error?: { type?: string; message: string };
  finalAgent?: string;
}

/** A waiting approval as `GET /v1/inbox` lists it. */
export interface InboxItem extends Approval {
  approvalId: string;
  team?: string;
  dueAt?: string;
  overdue: boolean;
  /** What approvals decided together share: one tool with the same argument fields, or one handoff edge. */
  similarKey: string;
}

/** One page of the inbox. */
export interface InboxPage {
  approvals: InboxItem[];
  total: number;
  nextPageToken?: string;
}

/** How one approval of a batch ended, as `POST /v1/approvals/batch` answers. */
export interface BatchOutcome {
  workflowId: string;
  approvalId: string;
  ok: boolean;
  error?: string;
  reason?: string;
}
