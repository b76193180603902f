/**
 * What streams carry: a model call's text as it forms, in pieces (deltas), beside Temporal rather
 * than in history, and the transport port that carries them.
 */

/**
 * A piece of a model call's answer as it forms. Which call (`workflowId`, `call`), which try of it
 * (`restart`, `attempt`), and where the piece goes in that try's text (`offset`): a viewer that
 * applies deltas by offset and drops what an earlier try wrote ends with the text of the try that
 * answered, whatever was sent twice or cut off.
 */
export interface TextDelta {
  /** The chain (workflow id) whose model call writes the text: a specialist's own id inside a delegation. */
  workflowId: string;
  /** The run of that chain (it changes when the chain continues as new). */
  runId: string;
  /** The agent whose model writes. */
  agent: string;
  /** The model call within its chain: `<agent>#<n>`, n counting that agent's calls from 0. */
  call: string;
  /** The conversation's turn (its message number) the call answers; 0 outside a conversation. */
  turn: number;
  /** The idempotency key of the conversation message the call answers. */
  message?: string;
  /** Keys of conversation messages answered with it (they interrupted its turn). */
  merged?: string[];
  /** How many times the call was started again after its worker was lost: a restart's tries come after every try before it. */
  restart: number;
  /** The activity's attempt, from 1: a later attempt's text replaces an earlier one's. */
  attempt: number;
  /** Where `text` starts in this try's text, in UTF-16 code units. */
  offset: number;
  text: string;
}

/** A delta as a transport delivers it, with the position to resume after. */
export interface StreamEntry {
  /** The transport's position of the batch this delta came in: read again after it to get what follows. */
  cursor: string;
  delta: TextDelta;
}

/**
 * Where deltas travel from the workers' model calls to whoever follows a chain. Deltas are
 * published to topics (a chain's or conversation's workflow id) and kept for a while, so a follower
 * can read from where it stopped. Nothing here touches Temporal: history keeps the answers, a
 * transport only the text on its way.
 */
export interface StreamTransport {
  /** Append `deltas` to `topic`, as one batch. */
  publish(topic: string, deltas: TextDelta[]): Promise<void>;
  /**
   * The batches of `topic` after `cursor` (from the oldest kept without one), then each new one as
   * it comes, until `signal` aborts.
   */
  read(topic: string, cursor: string | undefined, signal: AbortSignal): AsyncIterable<StreamEntry[]>;
  /** The cursor of the newest batch of `topic`, to read only what comes next; `undefined` when it has none. */
  last(topic: string): Promise<string | undefined>;
  /** Let go of connections. */
  close(): Promise<void>;
}
