/**
 * What the harness and its worker processes tell each other over the IPC channel: which workers a
 * process serves, the puppet model's calls and their answers, and the activities in flight.
 */
import type { TeamVersion } from './team';

/** One Temporal worker a process runs. */
export interface ServedWorker {
  taskQueue: string;
  version: TeamVersion;
  /** A Worker Deployment version (`{name, buildId}`); none for an unversioned worker. */
  deployment?: { name: string; buildId: string };
  /** The puppet model answers through the AI SDK adapter (`AiSdkProvider` over a puppet `LanguageModelV3`). */
  aiSdk?: boolean;
}

/** A tool call the puppet model makes. */
export interface PuppetToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** What the puppet model answers one call with. */
export interface PuppetAnswer {
  text?: string;
  toolCalls?: PuppetToolCall[];
  /** The provider fails the call for good with this message (non-retryable), as one that is down would after its retries. */
  fail?: string;
}

/** A tool as the called model sees it: its name and the parameters it requires. */
export interface OfferedTool {
  name: string;
  required: string[];
  /** For `handoff` and `delegate`: the targets the model may name. */
  targets?: string[];
}

/** A model call waiting for the harness to say what the model answers. */
export interface PuppetCall {
  /** The same for every attempt and restart of one call (workflow, run, agent, call index, prompt). */
  key: string;
  /** This attempt's number in its worker process: attempts of one call can overlap (an attempt the server gave up on is stopped only when its worker hears so, perhaps after the next one began). */
  attempt: number;
  workflowId: string;
  runId: string;
  agent: string;
  callIndex: number;
  tools: OfferedTool[];
  /** The newest user or tool message, clipped. */
  latest: string;
  /** Whether the call's text is streamed (the chain has a stream tag). */
  streamed: boolean;
  /** In a conversation: the idempotency key of the message the call answers, and of messages merged into its turn. */
  message?: string;
  merged?: string[];
}

/** From the harness to a worker process. */
export type ToWorker =
  { type: 'serve'; workers: ServedWorker[] } | { type: 'answer'; key: string; answer: PuppetAnswer };

/** From a worker process to the harness. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'serving'; taskQueues: string[] }
  | ({ type: 'call' } & PuppetCall)
  | { type: 'call_ended'; key: string; attempt: number; how: 'answered' | 'stopped' }
  | {
      type: 'activity';
      phase: 'start' | 'end';
      workflowId: string;
      activityId: string;
      activity: string;
      failure?: string;
    };

/** The call key: stable across attempts and restarts of one call, different for any other call. */
export function callKeyParts(
  workflowId: string,
  runId: string,
  agent: string,
  callIndex: number,
  prompt: string,
): string {
  return `${workflowId}|${runId}|${agent}|${callIndex}|${prompt}`;
}
