/**
 * Text the chat must not show: the UI message stream only ever adds text, so when a model call's
 * text is replaced (a retried call, a worker lost mid-answer, text that is not what history
 * records), baton closes the text part it sent and names it in a `data-text-reset` part; the
 * call's text then starts again in a new part. Rendering a message through
 * {@link withoutReplacedText} shows exactly what history records.
 */
import type { UIMessage } from 'ai';

/** The type of the part that names a text part to drop. */
export const TEXT_RESET_PART = 'data-text-reset';

/** The message without the text parts a `data-text-reset` part names (the same message when there are none). */
export function withoutReplacedText<M extends UIMessage>(message: M): M {
  const dropped = new Set<unknown>();
  for (const p of message.parts)
    if (p.type === TEXT_RESET_PART) dropped.add((p as { data?: { part?: unknown } }).data?.part);
  if (dropped.size === 0) return message;
  return {
    ...message,
    parts: message.parts.filter((p) => !(p.type === 'text' && dropped.has(batonPartOf(p.providerMetadata)))),
  };
}

/** The baton part id a text part carries in its provider metadata. */
function batonPartOf(metadata: unknown): unknown {
  return (metadata as { baton?: { part?: unknown } } | undefined)?.baton?.part;
}
