/**
 * What a follower waits on: items put by several producers (a transport's reads, history's events,
 * a reply), taken one at a time in the order they came.
 */
export class Mailbox<T> {
  readonly #items: T[] = [];
  #wake: (() => void) | undefined;

  /** Add `item`, waking a waiting {@link take}. */
  put(item: T): void {
    this.#items.push(item);
    this.#wake?.();
  }

  /** Wake a waiting {@link take}, so its caller looks again (after an abort). */
  nudge(): void {
    this.#wake?.();
  }

  /**
   * The oldest item; when there is none, waits until one is put (or a {@link nudge}) and answers
   * `undefined`, so the caller checks what it must before it takes again.
   */
  async take(): Promise<T | undefined> {
    if (this.#items.length > 0) return this.#items.shift();
    await new Promise<void>((resolve) => (this.#wake = resolve));
    this.#wake = undefined;
    return undefined;
  }
}
