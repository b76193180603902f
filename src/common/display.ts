/**
 * Text from outside (approver names, comments, reasons, messages, tool arguments, a model's
 * output) made safe to show on a terminal, a page, a diagram, a metrics label or a log line: its
 * control characters (C0, DEL, C1: ESC sequences, carriage returns, line breaks, tabs), its
 * line and paragraph separators and its bidirectional formatting characters (embeddings,
 * overrides, isolates and marks, which reorder the rest of a line) are shown as visible escapes
 * rather than acted on. What is left is printable text on one line, in the order it was written.
 *
 * Workflow-safe: pure code, no I/O.
 */

/** Characters a display acts on instead of showing: C0 and C1 controls, DEL, line and paragraph separators, bidi formatting. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** The visible stand-in of one unsafe character: `\n`, `\r`, `\t`, `\u001b` for other controls, `⟨U+202E⟩` for the rest. */
function visible(c: string): string {
  const code = c.charCodeAt(0);
  if (NAMED[c]) return NAMED[c];
  if (code < 0xa0) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/**
 * `text` with every control, line break and bidirectional formatting character shown as a visible
 * escape (`\u001b`, `\n`, `⟨U+202E⟩`), so it prints as one line of what was written and cannot
 * move the cursor, colour the terminal, start a line of its own or reorder what follows it.
 * @example displayText('alice\u001b[2K\r07:00 approved') // 'alice\\u001b[2K\\r07:00 approved'
 */
export function displayText(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** Whether `text` holds a character {@link displayText} would neutralise. */
export function hasUnsafeText(text: string): boolean {
  UNSAFE.lastIndex = 0;
  const found = UNSAFE.test(text);
  UNSAFE.lastIndex = 0;
  return found;
}

/**
 * Text from outside as a line shows it: neutralised ({@link displayText}), at most `max`
 * characters of it, and in double quotes, so nothing it holds can pass for the line's own words.
 * @example `approved by ${quotedText(record.approver)}` // approved by "alice"
 */
export function quotedText(text: string, max = 200): string {
  const cut = [...text];
  const shown = cut.length > max ? `${cut.slice(0, max - 1).join('')}…` : text;
  return `"${displayText(shown).replace(/"/g, '\\"')}"`;
}
