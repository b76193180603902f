/**
 * Options of a `conversation` workflow, beside the run options every message's chain runs with:
 * one descriptor per option, from which their types, validation and resolution derive.
 *
 * Workflow-safe: no I/O.
 */
import { durationAtLeast, integer, isRecord, number, oneOf, shown } from './check';
import { type InputOf, option, type ResolvedOf } from './optionDescriptor';

/**
 * Options of a `conversation` workflow, beside the `RunOptions` every message's chain runs
 * with. Each field is optional; {@link resolveConversationOptions} fills the defaults.
 */
export const CONVERSATION_OPTIONS = {
  /** How long the conversation stays open without a message; a durable timer, so it survives restarts. @default "24 hours" */
  idleTimeout: option<string | number>({
    default: '24 hours',
    check: durationAtLeast(1000, '1 second'),
    doc: 'end the conversation after this long without a message',
  }),
  /**
   * Summarize the active agent's older messages once its conversation passes this many tokens
   * (estimated as characters / 4), through a recorded model call; 0 never compacts. @default 16000
   */
  compactAfterTokens: option<number>({
    default: 16_000,
    check: integer(0, 10_000_000),
    doc: 'compact the conversation past this many estimated tokens (0: never)',
  }),
  /** User messages (with everything after each) kept word for word when older ones are summarized. @default 4 */
  keepRecentTurns: option<number>({
    default: 4,
    check: integer(1, 1000),
    doc: 'recent user messages kept verbatim by a compaction',
  }),
  /** Replies remembered by idempotency key, newest first, so a resent message gets its first reply. @default 100 */
  idempotencyWindow: option<number>({
    default: 100,
    check: integer(1, 10_000),
    doc: 'replies remembered for resent idempotency keys',
  }),
  /**
   * What a message that arrives while another is answered does: `enqueue` (wait its turn),
   * `reject`, `interrupt` or `rollback` (see `MidTurnPolicy`); a message may say otherwise. @default "enqueue"
   */
  midTurn: option<'enqueue' | 'reject' | 'interrupt' | 'rollback'>({
    default: 'enqueue',
    check: oneOf(['enqueue', 'reject', 'interrupt', 'rollback']),
    doc: 'what a message arriving mid-turn does: enqueue, reject, interrupt or rollback',
  }),
  /**
   * Money the whole conversation may spend on model calls, every message's chain and its compactions
   * included, in the currency of the team's prices; 0 for no limit. A message's chain that would pass
   * it stops as a run's `maxCost` does. @default 0
   */
  maxCost: option<number>({
    default: 0,
    check: number(0, 1e9),
    doc: 'money the whole conversation may spend on model calls (0: no limit)',
  }),
};

/** The descriptors of the conversation options, from which their types are derived. */
type ConversationDescriptors = typeof CONVERSATION_OPTIONS;

/** Options of a conversation; see {@link CONVERSATION_OPTIONS} for each one and its default. */
export type ConversationOptions = { [K in keyof ConversationDescriptors]?: InputOf<ConversationDescriptors[K]> };

/** {@link ConversationOptions} with every default applied. */
export type ResolvedConversationOptions = {
  [K in keyof ConversationDescriptors]: ResolvedOf<ConversationDescriptors[K]>;
};

/** The names of the conversation options. */
export const CONVERSATION_OPTION_KEYS = Object.keys(CONVERSATION_OPTIONS) as (keyof ConversationOptions)[];

/** Problems with conversation options, each naming the option and what would be valid. */
export function conversationOptionProblems(options: unknown, key = 'conversation'): string[] {
  if (!isRecord(options)) return [`"${key}" must be an object, got ${shown(options)}`];
  const problems = Object.keys(options)
    .filter((k) => !Object.hasOwn(CONVERSATION_OPTIONS, k))
    .map((k) => `unknown conversation option "${k}" (valid: ${CONVERSATION_OPTION_KEYS.join(', ')})`);
  for (const k of CONVERSATION_OPTION_KEYS) {
    if (options[k] !== undefined) problems.push(...CONVERSATION_OPTIONS[k].check(options[k], `${key}.${k}`));
  }
  return problems;
}

/** Apply defaults to validated conversation options. */
export function resolveConversationOptions(options: ConversationOptions = {}): ResolvedConversationOptions {
  const resolved: Record<string, unknown> = {};
  for (const k of CONVERSATION_OPTION_KEYS) resolved[k] = options[k] ?? CONVERSATION_OPTIONS[k].default;
  return resolved as ResolvedConversationOptions;
}
