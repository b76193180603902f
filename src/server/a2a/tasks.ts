/**
 * A chain as an A2A task: its id is the chain's workflow id, its state baton's status (a chain
 * waiting for a person is `input-required`, or `auth-required` when the decision must be signed),
 * the approval's request in the status message, the answer as the `answer` artifact.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Role, TaskState, type Artifact, type Message, type Part, type Task, type TaskStatus } from '@a2a-js/sdk';

/** What the task is made from: a chain as the REST API shows it to the caller (`runView`). */
export interface ChainView {
  workflowId: string;
  status: string;
  currentAgent?: string;
  pendingApprovals: Record<string, unknown>[];
  output?: unknown;
  error?: unknown;
}

/** A text part. */
export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/** A JSON part. */
export function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** A message from the team. */
export function agentMessage(
  taskId: string,
  contextId: string,
  parts: Part[],
  metadata?: Record<string, unknown>,
): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * The context of a task: a message that names a context starts a chain whose id carries it
 * (`a2a:<contextId>:<uuid>`), so the context survives the service; any other chain is its own context.
 */
export function contextOf(taskId: string): string {
  const m = /^a2a:(.+):[0-9a-f-]{36}$/.exec(taskId);
  return m ? m[1]! : taskId;
}

/**
 * The workflow id of a chain started in `contextId` (a new context when absent) by a message:
 * derived from who sent it and its `messageId` (`key`), so a message sent again (a client that
 * retried, a worker that was lost while it waited) is the same task; a new one without a key.
 */
export function chainIdFor(
  contextId: string | undefined,
  agent: string,
  key?: { identity: string; messageId: string },
): string {
  const id = key ? uuidOf(`${key.identity}\n${agent}\n${key.messageId}`) : randomUUID();
  return contextId ? `a2a:${contextId}:${id}` : `baton-${agent}-${id}`;
}

/** A UUID-shaped digest of `text` (so a task id keeps the shape `contextOf` reads). */
function uuidOf(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const TERMINAL = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/** Whether a task in `state` will change no more. */
export function isTerminal(state: TaskState | undefined): boolean {
  return state !== undefined && TERMINAL.has(state);
}

/** Whether a task in `state` waits for its client. */
export function isInterrupted(state: TaskState | undefined): boolean {
  return state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED;
}

/** The task of a chain. */
export function taskOf(view: ChainView): Task {
  const status = statusOf(view);
  const artifacts: Artifact[] = view.status === 'completed' ? [answerArtifact(view.output)] : [];
  return {
    id: view.workflowId,
    contextId: contextOf(view.workflowId),
    status,
    artifacts,
    history: [],
    metadata: { baton: { status: view.status, ...(view.currentAgent ? { agent: view.currentAgent } : {}) } },
  };
}

/** The chain's answer as an artifact: text, or JSON for a structured answer. */
export function answerArtifact(output: unknown): Artifact {
  return {
    artifactId: 'answer',
    name: 'answer',
    description: "The chain's answer",
    parts: [typeof output === 'string' ? textPart(output) : dataPart(output ?? null)],
    metadata: undefined,
    extensions: [],
  };
}

/** The task's status: its state and, when it waits or failed, a message saying why. */
export function statusOf(view: ChainView): TaskStatus {
  const ctx = contextOf(view.workflowId);
  const at = new Date().toISOString();
  const waiting = view.pendingApprovals;
  if (waiting.length > 0 && (view.status === 'running' || view.status === 'awaiting_approval')) {
    const signed = waiting.some((p) => p.requireSignature === true);
    return {
      state: signed ? TaskState.TASK_STATE_AUTH_REQUIRED : TaskState.TASK_STATE_INPUT_REQUIRED,
      message: agentMessage(view.workflowId, ctx, [textPart(askText(waiting)), dataPart({ approvals: waiting })]),
      timestamp: at,
    };
  }
  switch (view.status) {
    case 'completed':
      return { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: at };
    case 'cancelled':
      return { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: at };
    case 'failed':
    case 'terminated':
    case 'timed_out':
      return {
        state: TaskState.TASK_STATE_FAILED,
        message: agentMessage(view.workflowId, ctx, [textPart(failureText(view))]),
        timestamp: at,
      };
    default:
      return { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: at };
  }
}

function failureText(view: ChainView): string {
  const error = view.error as { type?: string; message?: string } | undefined;
  if (error?.message) return `The chain failed: ${error.type ? `${error.type}: ` : ''}${error.message}`;
  return `The chain ended: ${view.status}`;
}

/** What the approvals ask, for people, and how to answer. */
function askText(waiting: Record<string, unknown>[]): string {
  const lines = waiting.map((p) => {
    const to = String(p.to);
    const what = to.startsWith('tool:')
      ? `${String(p.from)} asks to call ${String(p.message)}`
      : `${String(p.from)} asks to hand off to ${to}: ${String(p.message)}`;
    const approvers = Array.isArray(p.approvers) ? `; approvers: ${p.approvers.join(', ')}` : '';
    const signed = p.requireSignature ? '; the decision must be signed (a data part {"signature": "<JWS>"})' : '';
    return `${what} (approval ${String(p.handoffId)}${approvers}${signed})`;
  });
  const which = waiting.length > 1 ? ' Name the approval with a data part {"approvalId": "…"}.' : '';
  return `Waiting for approval: ${lines.join('; ')}. Reply "approve" or "reject" (a comment may follow), or a data part {"decision": "approve" | "reject", "comment"?}.${which}`;
}
