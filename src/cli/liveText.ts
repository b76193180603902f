/**
 * Model text printed as it forms: `  writer: ` and then each piece as it comes, on a terminal or
 * not. A retried call's text is dropped with a note and written again, also when its line was
 * already closed (an event printed since: a lost worker's call is started again after its timeout);
 * text that differs from the recorded answer is followed by that answer.
 */
import { displayText } from '../common/display';
import type { TextChange } from '../streams/board';

export class LiveText {
  /** The call whose text is being written, and how much of it is out. */
  #open?: { key: string; written: number };
  /** Calls whose text is on screen on a line closed since. */
  readonly #closed = new Set<string>();

  constructor(
    private readonly write: (text: string) => void,
    private readonly indent = '  ',
  ) {}

  /** Whether a call's text is being written (a line is open). */
  get open(): boolean {
    return this.#open !== undefined;
  }

  /** Write what `change` adds. */
  apply(change: TextChange): void {
    const key = `${change.workflowId}\n${change.call}`;
    // Text that only came with the recorded answer was not written as it formed: the answer shows it.
    if (change.final && this.#open?.key !== key) return;
    if (this.#open?.key !== key) {
      this.end();
      if (change.kind === 'text_reset') {
        // The text is on a line of its own above: say it no longer stands.
        if (this.#closed.delete(key))
          this.write(
            `${this.indent}(${displayText(change.agent)}: ${WHY[change.reason]}; its text above is dropped)\n`,
          );
        return;
      }
      this.#closed.delete(key);
      this.write(`${this.indent}${displayText(change.agent)}: `);
      this.#open = { key, written: 0 };
    }
    const open = this.#open!;
    if (change.kind === 'text_reset') {
      this.write(`\n${this.indent}(${WHY[change.reason]})\n${this.indent}${displayText(change.agent)}: `);
      open.written = 0;
      return;
    }
    // A piece goes at its offset: what is already out is not written again.
    const fresh = change.text.slice(Math.max(0, open.written - change.offset));
    if (fresh === '') return;
    // The model's own line breaks stay, indented under the agent's name; what else would act on the terminal shows as an escape.
    this.write(fresh.split('\n').map(displayText).join(`\n${this.indent}  `));
    open.written = change.offset + change.text.length;
  }

  /** End the open line, if any. */
  end(): void {
    if (!this.#open) return;
    this.write('\n');
    if (this.#open.written > 0) this.#closed.add(this.#open.key);
    this.#open = undefined;
  }
}

const WHY = {
  retry: 'the model call was tried again',
  correction: 'as recorded',
  stopped: 'stopped by an interrupt',
} as const;
