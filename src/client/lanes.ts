/**
 * The order of what one client sends a conversation. Temporal takes at most 10 updates in flight
 * per workflow (`history.maxInFlightUpdates`); one more is refused with RESOURCE_EXHAUSTED and
 * retried by the client later, after messages sent after it. So a client sends each conversation's
 * messages one after the other, each once the one before was taken (accepted, with its turn
 * number), with at most {@link MAX_MESSAGES_IN_FLIGHT} taken and not yet answered; the rest wait
 * here, in the order they were sent.
 */
import type { Client } from '@temporalio/client';
import { whileWorkflowTaskFails } from './taskFailing';

/**
 * Messages (and end requests) one client has taken and not yet answered per conversation: below
 * Temporal's 10, leaving room for decisions and for other clients.
 */
export const MAX_MESSAGES_IN_FLIGHT = 8;

/** One conversation's queue in one client. */
export class Lane {
  private readonly waiting: (() => void)[] = [];
  /** A send is on its way and not yet taken: the next waits for its turn number. */
  private sending = false;
  private inFlight = 0;

  constructor(private readonly release: () => void) {}

  /**
   * Send with `start` (resolving once the conversation took it) in this lane's order, then wait
   * for the answer with `finish`.
   */
  async run<H, T>(start: () => Promise<H>, finish: (taken: H) => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.pump();
    });
    let taken: H;
    try {
      taken = await whileWorkflowTaskFails(start);
      this.inFlight++;
    } finally {
      this.sending = false;
      this.pump();
    }
    try {
      return await finish(taken);
    } finally {
      this.inFlight--;
      this.pump();
    }
  }

  private pump(): void {
    if (!this.sending && this.inFlight < MAX_MESSAGES_IN_FLIGHT) {
      const next = this.waiting.shift();
      if (next) {
        this.sending = true;
        next();
        return;
      }
    }
    if (!this.sending && this.inFlight === 0 && this.waiting.length === 0) this.release();
  }
}

const lanes = new WeakMap<Client, Map<string, Lane>>();

/** The lane of conversation `id` in `client`, shared by every handle on it (the HTTP service makes one per request). */
export function laneOf(client: Client, id: string): Lane {
  let byId = lanes.get(client);
  if (!byId) lanes.set(client, (byId = new Map()));
  let lane = byId.get(id);
  if (!lane) {
    const map = byId;
    lane = new Lane(() => {
      if (map.get(id) === lane) map.delete(id);
    });
    byId.set(id, lane);
  }
  return lane;
}
