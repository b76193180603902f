/**
 * What a chain records as it goes: its handoffs, what each target was given, the answers tool calls
 * got, and the chain a delegated run works for. Below the chain's state and the run's input and
 * result, which carry them. Plain JSON; workflow-safe (no I/O).
 */
import type { ApprovalRecord } from './approvals';
import type { ChatMessage } from './model';
import type { HandoffContext, StateUpdate } from './team';

/** A handoff that happened, as recorded in the chain. */
export interface HandoffRecord {
  from: string;
  to: string;
  message: string;
  /** Workflow time of the handoff, ISO 8601. */
  timestamp: string;
  /** The model turn of the chain (1-based) in which the handoff was requested. */
  turn: number;
  /** How the handoff was approved, when it needed approval. */
  approval?: ApprovalRecord;
  /** The handoff's typed input, parsed (when the target declares an `inputType`). */
  input?: unknown;
  /** The state update the handoff carried (teams with `sharedState`). */
  update?: StateUpdate;
}

/** How a handoff's target got its start: what it was given and what produced it. */
export interface TransferRecord {
  context: HandoffContext;
  /** `message`, `rich`, or `template`. */
  input: string;
  /** The filters applied, in order, e.g. `dropToolCalls`, `last 6`, `summarize`. */
  filters: string[];
  transferSystemMessage: boolean;
  /** The exact conversation the target's first model call starts from. */
  messages: ChatMessage[];
}

/** The answer a tool call got, as the model saw it. */
export interface ToolResultRecord {
  toolCallId: string;
  name: string;
  content: string;
}

/**
 * A handoff as history records it: the value of the `batonHandoff` memo (each upsert is a
 * `WorkflowPropertiesModified` event) and the input of the hook activity.
 */
export interface RecordHandoffInput {
  /**
   * One readable line, `#2 triage → refunds (approved by alice)`: what
   * `temporal workflow show --detailed` prints as `upsertedMemo.fields.batonHandoff.summary`.
   * Absent in records written before it existed.
   */
  summary?: string;
  handoff: HandoffRecord;
  /** 1-based position of this handoff in the chain. */
  index: number;
  /** What every tool call of the handoff's turn was answered, the handoff and any ignored ones included. */
  toolResults: ToolResultRecord[];
  /** What the target received; absent in records written before it existed. */
  transfer?: TransferRecord;
}

/** The chain a delegated run works for. */
export interface ParentLink {
  workflowId: string;
  /** The first chain of the tree. */
  rootWorkflowId: string;
  /** 1 for a specialist of a top chain, 2 for its specialist, … */
  depth: number;
  /** The token the calling chain gave this specialist: its reports of waiting approvals carry it. */
  token?: string;
  /** The team version of the chain that delegated: the specialist's chain runs on the same team. */
  team?: { id: string; hash: string };
  /** The conversation's turn the specialist works for, so its text joins that turn's stream. */
  turn?: number;
  /** The idempotency key of the conversation message the specialist works for. */
  message?: string;
}
