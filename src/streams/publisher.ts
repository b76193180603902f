/**
 * The worker's side of a stream: one model call's text, as the provider writes it, published as
 * deltas with their offsets. Text that arrives while a batch is on its way goes in the next batch,
 * so a fast model costs few publishes and a slow one is not held back.
 */
import type { StreamTransport, TextDelta } from './types';

/** What every delta of one try of one call carries. */
export type DeltaOrigin = Omit<TextDelta, 'offset' | 'text'>;

/** Publishes one try's text to its topics; a transport that fails is reported once and the call goes on. */
export class DeltaPublisher {
  #pending = '';
  #pendingAt = 0;
  #written = 0;
  #sending?: Promise<void>;
  #failed = false;

  constructor(
    private readonly transport: StreamTransport,
    private readonly topics: string[],
    private readonly origin: DeltaOrigin,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** Text the model wrote next. */
  write(text: string): void {
    if (text === '' || this.#failed) return;
    if (this.#pending === '') this.#pendingAt = this.#written;
    this.#pending += text;
    this.#written += text.length;
    this.#sending ??= this.#send();
  }

  /** Resolves once everything written so far was published (or given up on). */
  async flush(): Promise<void> {
    while (this.#sending) await this.#sending;
  }

  async #send(): Promise<void> {
    try {
      while (this.#pending !== '' && !this.#failed) {
        const delta: TextDelta = { ...this.origin, offset: this.#pendingAt, text: this.#pending };
        this.#pending = '';
        await Promise.all(this.topics.map((topic) => this.transport.publish(topic, [delta])));
      }
    } catch (err) {
      // Followers still get the answer from history: a transport that is down costs the live text only.
      this.#failed = true;
      this.onError(err);
    } finally {
      this.#sending = undefined;
    }
  }
}
