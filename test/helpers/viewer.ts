import { applyChange, type TextChange, type TextReset } from '../../src/streams/board';

/** What a viewer of a stream ends with: each model call's text, as the changes it was given make it. */
export class Viewer {
  readonly texts = new Map<string, string>();
  readonly resets: TextReset[] = [];
  /** How many text pieces arrived, by call. */
  readonly pieces = new Map<string, number>();

  apply(item: { kind: string }): void {
    if (item.kind !== 'text' && item.kind !== 'text_reset') return;
    const change = item as TextChange;
    const key = `${change.workflowId} ${change.call}`;
    if (change.kind === 'text_reset') this.resets.push(change);
    else this.pieces.set(key, (this.pieces.get(key) ?? 0) + 1);
    this.texts.set(key, applyChange(this.texts.get(key) ?? '', change));
  }

  text(workflowId: string, call: string): string | undefined {
    return this.texts.get(`${workflowId} ${call}`);
  }
}
