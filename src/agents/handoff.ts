import type { z } from 'zod';
import type {
  DelegateOptionsSpec,
  HandoffContext,
  HandoffFilter,
  HandoffOptionsSpec,
  HandoffRule,
} from '../common/team';
import { toJsonSchema } from './tool';

/** What `onHandoff` gets: the handoff about to happen. */
export interface HandoffCheck {
  from: string;
  to: string;
  message: string;
  /** The typed input, parsed. */
  input?: unknown;
  workflowId: string;
}

/** Options of a handoff to one target; every field is optional. */
export interface HandoffOptions {
  /** The per-target tool's name. @default `transfer_to_<target>` */
  toolName?: string;
  /** Replaces the target's description in the handoff tool. */
  description?: string;
  /** Why to hand off to this target: shown to the model in the tool description. */
  reason?: string;
  /**
   * Which conversation the target starts from: `"message"` (none: only its input), `"full"` (the
   * source's conversation, filtered), `"last_user_message"`. @default "message"
   */
  context?: HandoffContext;
  /** Give the target the source's instructions too. @default false */
  transferSystemMessage?: boolean;
  /** Filters for the carried conversation: drop tool calls, keep the last N messages, summarize. */
  filter?: HandoffFilter;
  /**
   * The target's input: `"message"`, `"rich"` (the original request, why, the task, work done and
   * recent history) or a template with `{{message}}`, `{{reason}}`, `{{from}}`, `{{to}}`,
   * `{{request}}`, `{{completedWork}}`, `{{recentHistory}}`, `{{input}}`, `{{input.<field>}}`,
   * `{{state}}`. @default "message"
   */
  input?: string;
  /**
   * A zod schema for the handoff's input (e.g. `z.object({ orderId: z.string(), priority: z.enum(['low', 'high']) })`):
   * the model fills it in the handoff call, arguments that do not match go back to it as a tool
   * error, and the parsed input is in the handoff record and the target's input template.
   */
  inputType?: z.ZodType;
  /** When the handoff is offered, on the run's state (evaluated in the workflow). */
  isEnabled?: HandoffRule;
  /**
   * Runs in the worker (an activity) just before the handoff: return `false` or a reason string to
   * veto it (the model is told the reason), anything else lets it go.
   */
  onHandoff?: (check: HandoffCheck) => unknown;
  /**
   * In a conversation, who answers the next message once the target has answered this one: the
   * target itself (`"stay"`), the agent that handed off (`"caller"`), or the agent with this id.
   * Over the target's own `returnTo`.
   * @default the target's `returnTo`, else "stay"
   */
  returnTo?: 'stay' | 'caller' | (string & {});
}

/** A handoff target declared with options, for an agent's `handoffs`. */
export interface HandoffDeclaration extends HandoffOptions {
  readonly kind: 'handoff';
  readonly to: string;
}

/**
 * Declare a handoff target with options, beside plain ids in an agent's `handoffs`.
 * @example handoffs: ['sales', handoff('refunds', { context: 'full', filter: { dropToolCalls: true }, input: 'rich' })]
 */
export function handoff(to: string, options: HandoffOptions = {}): HandoffDeclaration {
  return { kind: 'handoff', to, ...options };
}

/** The data a declaration records in the team snapshot (no functions, no zod). */
export function handoffOptionsSpec(d: HandoffDeclaration): HandoffOptionsSpec {
  return {
    ...(d.toolName !== undefined ? { toolName: d.toolName } : {}),
    ...(d.description !== undefined ? { description: d.description } : {}),
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
    ...(d.context !== undefined ? { context: d.context } : {}),
    ...(d.transferSystemMessage !== undefined ? { transferSystemMessage: d.transferSystemMessage } : {}),
    ...(d.filter !== undefined ? { filter: d.filter } : {}),
    ...(d.input !== undefined ? { input: d.input } : {}),
    ...(d.inputType !== undefined ? { inputSchema: toJsonSchema(d.inputType) } : {}),
    ...(d.isEnabled !== undefined ? { isEnabled: d.isEnabled } : {}),
    ...(d.onHandoff !== undefined ? { onHandoff: true } : {}),
    ...(d.returnTo !== undefined ? { returnTo: d.returnTo } : {}),
  };
}

/** Options of a delegation to one specialist; every field is optional. */
export type DelegateOptions = DelegateOptionsSpec;

/** A specialist declared with `delegate(target, options)` in an agent's `handoffs`. */
export interface DelegateDeclaration extends DelegateOptions {
  readonly kind: 'delegate';
  readonly to: string;
}

/**
 * Declare a specialist this agent may delegate tasks to: the specialist runs as a child chain with
 * its own limits and answers back, and the agent stays in charge.
 * @example handoffs: ['sales', delegate('researcher', { maxTurns: 5, timeout: '2 minutes' })]
 */
export function delegate(to: string, options: DelegateOptions = {}): DelegateDeclaration {
  return { kind: 'delegate', to, ...options };
}

/** The data a delegate declaration records in the team snapshot. */
export function delegateOptionsSpec(d: DelegateDeclaration): DelegateOptionsSpec {
  const { kind: _kind, to: _to, ...options } = d;
  return options;
}
