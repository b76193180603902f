/**
 * What a handoff's target starts from: its instructions, the part of the source's conversation the
 * handoff carries (`context` and `filter`), and its input rendered from a template.
 *
 * Pure: no Temporal API, no I/O. The summary, when asked for, comes from an activity.
 */
import type { HandoffResult } from '../../src/common/handoff';
import type { ChatMessage } from '../../src/common/model';
import type { TransferRecord } from '../../src/common/run';
import type { ChainState } from '../../src/common/state';
import type { AgentSpec, HandoffOptionsSpec } from '../../src/common/team';

/** The built-in rich input (Jazz): the original request, why the target gets the work, its task, work done and recent history. */
export const RICH_INPUT = [
  'You are taking over from {{from}}.',
  'Original request: {{request}}',
  'Why you: {{reason}}',
  'Your task: {{message}}',
  'Input: {{input}}',
  'Work done so far:\n{{completedWork}}',
  'Recent conversation:\n{{recentHistory}}',
].join('\n');

const NAMED_INPUTS: Record<string, string> = { message: '{{message}}', rich: RICH_INPUT };

/** The carried conversation and what a summary would condense, before the summary exists. */
export interface TransferPlan {
  options: HandoffOptionsSpec;
  /** The source's messages the handoff carries, filtered (without system messages). */
  carried: ChatMessage[];
  /** The filters applied, in order. */
  filters: string[];
  /** Whether the carried messages are to be summarized by a model call first. */
  summarize?: { instructions?: string };
}

/** Plan what `h` carries from the source's conversation, per the handoff's declaration. */
export function planTransfer(state: ChainState, source: AgentSpec, h: HandoffResult): TransferPlan {
  const options = source.handoffOptions?.[h.to] ?? {};
  const context = options.context ?? 'message';
  const conversation = state.messages.filter((m) => m.role !== 'system');
  let carried: ChatMessage[] =
    context === 'full'
      ? conversation
      : context === 'last_user_message'
        ? conversation.filter((m) => m.role === 'user').slice(-1)
        : [];
  const filters: string[] = [];
  if (options.filter?.dropToolCalls && carried.length > 0) {
    carried = carried.flatMap((m): ChatMessage[] =>
      m.role === 'tool'
        ? []
        : m.role === 'assistant'
          ? m.content
            ? [{ role: 'assistant', content: m.content }]
            : []
          : [m],
    );
    filters.push('dropToolCalls');
  }
  if (options.filter?.lastMessages !== undefined && carried.length > 0) {
    carried = carried.slice(-options.filter.lastMessages);
    // A kept tool answer needs the call it answers; drop answers whose call was cut.
    while (carried[0]?.role === 'tool') carried = carried.slice(1);
    filters.push(`last ${options.filter.lastMessages}`);
  }
  const summarize = options.filter?.summarize;
  if (summarize && carried.length > 0) filters.push('summarize');
  return {
    options,
    carried,
    filters,
    ...(summarize && carried.length > 0 ? { summarize: summarize === true ? {} : summarize } : {}),
  };
}

/** The target's conversation, and the record of how it was made. `summary` is the summary the plan asked for. */
export function transferTo(
  state: ChainState,
  source: AgentSpec,
  target: AgentSpec,
  h: HandoffResult,
  plan: TransferPlan,
  summary?: string,
): TransferRecord {
  const { options } = plan;
  const messages: ChatMessage[] = [{ role: 'system', content: target.instructions }];
  if (options.transferSystemMessage)
    messages.push({
      role: 'system',
      content: `Instructions of ${source.id}, who handed this work to you:\n${source.instructions}`,
    });
  if (summary !== undefined)
    messages.push({ role: 'user', content: `Summary of the conversation so far:\n${summary}` });
  else messages.push(...plan.carried);
  const template = options.input ?? 'message';
  messages.push({ role: 'user', content: render(NAMED_INPUTS[template] ?? template, variables(state, source, h)) });
  return {
    context: options.context ?? 'message',
    input: NAMED_INPUTS[template] ? template : 'template',
    filters: plan.filters,
    transferSystemMessage: options.transferSystemMessage ?? false,
    messages,
  };
}

/** The text a summary is made from: the carried messages, one per paragraph. */
export function transcript(messages: ChatMessage[]): string {
  return messages.map((m) => `${m.role}: ${contentOf(m)}`).join('\n\n');
}

function variables(state: ChainState, source: AgentSpec, h: HandoffResult): Record<string, unknown> {
  return {
    ...contextVariables(state),
    message: h.message,
    from: h.from,
    to: h.to,
    reason: source.handoffOptions?.[h.to]?.reason ?? `${h.from} handed this work to you`,
    input: h.input,
  };
}

/** What any template can use about the chain: the original request, work done, recent history, shared state. */
export function contextVariables(state: ChainState): Record<string, unknown> {
  const conversation = state.messages.filter((m) => m.role !== 'system');
  return {
    request: state.request ?? conversation.find((m) => m.role === 'user')?.content ?? '',
    completedWork: completedWork(conversation),
    recentHistory: conversation
      .filter((m) => (m.role === 'user' || m.role === 'assistant') && contentOf(m) !== '')
      .slice(-6)
      .map((m) => `${m.role}: ${clip(contentOf(m), 300)}`)
      .join('\n'),
    state: state.shared,
  };
}

/** The tool calls of the source's activation with their answers, the last ten. */
function completedWork(conversation: ChatMessage[]): string {
  const answers = new Map(conversation.flatMap((m) => (m.role === 'tool' ? [[m.toolCallId, m.content] as const] : [])));
  return conversation
    .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))
    .map((c) => `- ${c.name}(${clip(c.arguments, 120)}) → ${clip(answers.get(c.id) ?? '(no answer)', 200)}`)
    .slice(-10)
    .join('\n');
}

/** Fill `{{name}}` and `{{name.field}}` from `vars`; objects as JSON, absent values as `(none)`. */
export function render(template: string, vars: Record<string, unknown>): string {
  return template.replace(/\{\{\s*([a-zA-Z]+)((?:\.[a-zA-Z0-9_-]+)*)\s*\}\}/g, (_all, name: string, path: string) => {
    let value: unknown = vars[name];
    for (const key of path.split('.').filter(Boolean))
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    if (value === undefined || value === null || value === '') return '(none)';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

function contentOf(m: ChatMessage): string {
  return m.content ?? '';
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
