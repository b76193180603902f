/**
 * How the audit's timeline shows text: on one line, clipped to a width (the JSON keeps it whole),
 * quoted where it came from outside, and times as the clock of the day.
 */

/** One line of `text`, at most `n` characters. */
export function clip(text: string, n = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
}

/** How much of an error or a reason a line shows. */
export const ERROR_WIDTH = 120;

/** `text` on one line of at most `n` characters, quoted. */
export const quoted = (text: string, n: number) => JSON.stringify(clip(text, n));

/** The time of day of an ISO 8601 time, to the millisecond. */
export const time = (iso: string) => iso.slice(11, 23);
