/**
 * Remote specialists: agents of another team, reached over A2A, that a team's agents delegate tasks
 * to as they delegate to their own specialists. What the team snapshot records of one, and what
 * one call of the `callRemoteAgent` activity takes and answers.
 *
 * Workflow-safe: no I/O.
 */
import { type Check, nonEmptyString, oneOf, shapeOf, string } from './check';
import type { LostWorkerRestart } from './lostWorkers';
import type { TeamNeed } from './version';

/** A remote agent as the team snapshot records it: where its tasks go, never its credentials. */
export interface RemoteAgentSpec {
  id: string;
  /** What the `delegate` tool tells the model about it. */
  description: string;
  /** The A2A JSON-RPC endpoint its tasks are sent to (`https://billing.example.com/a2a`); or `card`. */
  url?: string;
  /** The URL of its Agent Card, read for the endpoint at each call; or `url`. */
  card?: string;
  /** The agent a task starts with there (the message's `metadata.agent`, as a baton team reads it). */
  agent?: string;
  /** How the worker authenticates to it: `bearer` when it sends a token of its own. */
  auth?: 'bearer';
}

/** Checks of a snapshot's remote agent. */
export const remoteAgentSpecCheck: Check<RemoteAgentSpec> = shapeOf<RemoteAgentSpec>()(
  {
    id: nonEmptyString,
    description: string,
    url: nonEmptyString,
    card: nonEmptyString,
    agent: nonEmptyString,
    auth: oneOf(['bearer']),
  },
  ['url', 'card', 'agent', 'auth'],
);

/** A remote task's state that waits for its client or someone at the remote: a person's approval, credentials. */
export type RemoteWaitState = 'input-required' | 'auth-required';

/** One call of the `callRemoteAgent` activity: send the task (once) and wait for its answer or its next wait. */
export interface RemoteCallInput {
  /** The remote agent's id in the team. */
  remote: string;
  /** The agent that delegates. */
  from: string;
  /**
   * The A2A message id, from the delegating chain's workflow id and the delegation call's id: a
   * call started again (a retry, a lost worker) sends the same message, which the remote takes as
   * the same task (baton's A2A server does).
   */
  messageId: string;
  /** The A2A context: the chain the delegation belongs to. */
  contextId: string;
  /** The task as the specialist reads it. */
  text: string;
  /** The remote task, once known: the call waits on it instead of sending the message. */
  taskId?: string;
  /** The wait the chain has on record: the call answers when the task leaves it, not while it stays. */
  waiting?: RemoteWaitState;
  /** What the call needs of the worker's team (the remote agent and its credentials). */
  team?: TeamNeed;
  lostWorker?: LostWorkerRestart;
}

/** How a call of the `callRemoteAgent` activity ended: the answer, a wait for someone at the remote, or the end of one. */
export type RemoteCallResult =
  | { kind: 'completed'; taskId: string; output: unknown }
  | { kind: 'waiting'; taskId: string; state: RemoteWaitState; message: string }
  /** The task the chain has on record as waiting works again. */
  | { kind: 'working'; taskId: string };

/** The most of a remote agent's answer a chain keeps (in history, for its model): characters. */
export const REMOTE_ANSWER_CHARS = 256 * 1024;

/** What a heartbeat of the `callRemoteAgent` activity carries: the task its message made. */
export interface RemoteCallProgress {
  taskId: string;
}

/** The A2A message id of a delegation: the call's own, in the chain's id. */
export function remoteMessageId(delegationId: string, callId: string): string {
  return `${delegationId}#${callId}`;
}
