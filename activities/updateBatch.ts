/**
 * Questions to one workflow from one worker process, sent together. Temporal takes a few updates
 * in flight per workflow (`history.maxInFlightUpdates`, 10 by default) and refuses one more with
 * RESOURCE_EXHAUSTED; the refusal also clears the workflow's cached state on the server, which
 * aborts every update then in flight ("workflow update was aborted"). A hundred chains asking one
 * ledger at once, each with an update of its own, refuse and abort each other over and over. Here
 * a process has one update in flight per workflow: the questions that come while it is out go
 * together in the next one, so what is in flight grows with the worker processes, not the chains.
 */
import { MAX_BATCH } from '../src/common/economics/messages';

interface Waiting<Q, A> {
  question: Q;
  send: (questions: Q[]) => Promise<A[]>;
  resolve(answer: A): void;
  reject(err: unknown): void;
}

/** The batches of one worker process, by workflow id. */
export class UpdateBatches {
  readonly #queues = new Map<string, Waiting<unknown, unknown>[]>();

  /**
   * Ask `question` of workflow `workflowId`: sent with the questions waiting beside it by the
   * `send` of the first of them (an update carrying the list, answered in order). A failure of the
   * update is each question's to handle.
   */
  ask<Q, A>(workflowId: string, question: Q, send: (questions: Q[]) => Promise<A[]>): Promise<A> {
    return new Promise<A>((resolve, reject) => {
      const queue = this.#queues.get(workflowId);
      const waiting = { question, send, resolve, reject } as Waiting<unknown, unknown>;
      if (queue) return void queue.push(waiting);
      this.#queues.set(workflowId, [waiting]);
      void this.#drain(workflowId);
    });
  }

  async #drain(workflowId: string): Promise<void> {
    for (;;) {
      const queue = this.#queues.get(workflowId)!;
      if (queue.length === 0) return void this.#queues.delete(workflowId);
      const batch = queue.splice(0, MAX_BATCH);
      try {
        const answers = await batch[0]!.send(batch.map((w) => w.question));
        batch.forEach((w, i) => w.resolve(answers[i]));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
  }
}
