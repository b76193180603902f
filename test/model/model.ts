/**
 * The model of the model-based harness: what the harness knows and expects of the chains and
 * conversations of one sequence. Part of it is what the commands did (starts, answers, decisions,
 * overrides, deploys); part is observed after every step (the puppet calls waiting for an answer,
 * the approvals waiting, how each chain ended), so the commands of the next step act on what is.
 */
import type { RunOptions } from '../../src';
import type { ConversationOptions, ConversationReply, PendingApproval, RunContext } from '../../src/workflow';
import type { PuppetAnswer, PuppetCall } from './protocol';
import type { AgentId, TeamVersion } from './team';

/** How a sequence's workers run: plain workers on one task queue, or versions of a Worker Deployment. */
/** `ai_sdk`: unversioned workers whose puppet model answers through baton's AI SDK adapter (./aiSdkPuppet.ts). */
export type Lane = 'unversioned' | 'versioned' | 'ai_sdk';

/** How team v2 came: beside a draining v1 (Worker Deployments), side by side with it, or with v1 gone. */
export type DeployMode = 'drain' | 'side_by_side' | 'v1_gone';

/** A decision the workflow took (the client got its record). */
export interface TakenDecision {
  approvalId: string;
  /** The chain the approval waited in (a specialist's own, for its approvals). */
  workflowId: string;
  outcome: 'approved' | 'rejected';
  subject: string;
  signed: boolean;
  /** The tool call it decided, for a tool approval. */
  toolCallId?: string;
}

/** A conversation message sent and not yet answered, or answered. */
export interface SentMessage {
  n: number;
  /** Its idempotency key. */
  key: string;
  text: string;
  midTurn: string;
  streamed: boolean;
  reply?: ConversationReply;
  /** The error's type (its name) and message. */
  error?: string;
  errorMessage?: string;
  judged?: boolean;
  done: Promise<void>;
  /** What a follower of the message (`chat.stream`) ended with, by `<workflowId> <agent>#<callIndex>`. */
  texts?: Map<string, string>;
  /** Its turn (or the one it waited behind) was stranded by a deploy: what `TurnStrandedError` said, and how many times a caller was told. */
  stranded?: { turn: number; strandedTurn: number; told: number };
  /** Sent again with its key once its conversation was migrated. */
  resent?: boolean;
  /** Sent over HTTP (operations/http.ts): the request as sent, to send again, and the keys each answer named. */
  http?: { body: Record<string, unknown>; header: boolean; keys: string[]; followed: number };
}

/** A chain or a conversation the sequence started (a root: specialists belong to it). */
export interface RootModel {
  id: string;
  kind: 'chain' | 'conversation';
  agent: AgentId;
  context: RunContext;
  /** The run options it started with. */
  startOptions: RunOptions;
  /** The run options it started with, with the overrides it took since. */
  options: RunOptions;
  conversation?: ConversationOptions;
  /** The team version of the deploy it started under. */
  startedOn: TeamVersion;
  status: 'open' | 'completed' | 'failed' | 'ended';
  /** The failure type of a failed chain. */
  failure?: string;
  failureMessage?: string;
  /** The output of a completed chain. */
  output?: unknown;
  /** Approvals waiting in its tree, as last observed. */
  approvals: PendingApproval[];
  /** Failure types the commands made possible (an invalid handoff, a limit, a team gone). */
  provoked: Set<string>;
  /** Decisions the workflow took. */
  decided: TakenDecision[];
  /** Decisions sent by signal, taken once their approval is seen gone. */
  signalled?: TakenDecision[];
  /** The end the harness asked for (a conversation's `end()`), while it is under way. */
  ending?: Promise<void>;
  /** How asking it to end failed. */
  endError?: string;
  /** Approval ids by what they ask (tool call id, or the handoff and its message). */
  asked: Map<string, Set<string>>;
  /** Conversation messages. */
  messages: SentMessage[];
  /** Times it was replayed. */
  replays: number;
  /** A conversation's migrations onto the current team, with what each answered and when. */
  migrations?: { from: string; to: string; turn?: number; at: number }[];
  /** A migration asked for and not yet answered. */
  migrating?: Promise<void>;
  /** The runs it was replayed from, oldest first. */
  replayedRuns: string[];
  /** Whether the invariants judged how it ended. */
  judged?: boolean;
  /** Left running by a known open defect and terminated: the end invariants leave it out. */
  abandoned?: boolean;
  /** Whether it ran as a follower (`run.stream()`) since it started, and what that follower saw. */
  follower?: {
    texts: Map<string, string>;
    error?: string;
    done: Promise<void>;
    stop: () => void;
    streams?: FollowedStream[];
  };
}

/** One `run.stream()` call of a follower: how often it said the text was unavailable, and whether a broker outage found it reading. */
export interface FollowedStream {
  told: number;
  /** Items it gave: one or more means its text transport was being read. */
  items: number;
  /** It ended with the chain (not failed, not stopped). */
  ended?: boolean;
  /** Broker outages that began while it was reading. */
  outages: number;
}

/** An answer the harness gave a puppet call. */
export interface GivenAnswer {
  call: PuppetCall;
  answer: PuppetAnswer;
  root: string;
}

/** Everything the harness knows of one sequence. */
export interface ModelState {
  /** Prefix of every workflow id of the sequence. */
  tag: string;
  lane: Lane;
  taskQueue: string;
  /** The version new chains start on. */
  version: TeamVersion;
  deployed?: DeployMode;
  roots: RootModel[];
  /** Puppet calls waiting for an answer, as last observed. */
  calls: PuppetCall[];
  answers: GivenAnswer[];
  /** Counter for unique references (tool call ids, messages). */
  next: number;
  /** Operations run, by name. */
  ran: Map<string, number>;
  /** Invariants checked. */
  checks: number;
}

/** A fresh model for a sequence. */
export function newModel(tag: string, lane: Lane, taskQueue: string): ModelState {
  return { tag, lane, taskQueue, version: 'v1', roots: [], calls: [], answers: [], next: 0, ran: new Map(), checks: 0 };
}

/** A unique reference within the sequence. */
export function ref(m: ModelState, prefix: string): string {
  return `${prefix}${++m.next}`;
}

/** The `pick`-th of `items` (wrapping), so a command stays meaningful when shrinking drops others. */
export function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length];
}

/** The root a workflow id belongs to: a specialist's id is its parent's with `/<specialist>-…` after it. */
export function rootOf(m: ModelState, workflowId: string): RootModel | undefined {
  const root = workflowId.split('/')[0]!;
  return m.roots.find((r) => r.id === root);
}

/** Open roots. */
export function openRoots(m: ModelState, kind?: RootModel['kind']): RootModel[] {
  return m.roots.filter((r) => r.status === 'open' && (kind === undefined || r.kind === kind));
}

/** What an approval asks: the same question asked again has the same subject. */
export function subjectOf(p: Pick<PendingApproval, 'from' | 'to' | 'message' | 'tool' | 'workflowId'>): string {
  return p.tool ? `tool ${p.tool.toolCallId}` : `handoff ${p.workflowId ?? ''} ${p.from}→${p.to}: ${p.message}`;
}
