/**
 * What the tests of calls the workflow answers itself build their synthetic histories from: a
 * two-agent team, the messages and model answers of its turns, the chain's result, and the audit
 * read from the runs.
 */
import { buildAudit, type AuditChain, type AuditEvent } from '../../src/audit/chain';
import { HANDOFF_TOOL_NAME } from '../../src/common/handoff';
import type { ChatMessage, ModelResponse, ToolCall, ToolSpec } from '../../src/common/model';
import type { HandoffRunResult } from '../../src/common/run';
import type { AgentSpec, TeamSpec } from '../../src/common/team';
import type { HistoryBuilder } from './synthetic';

const tool = (name: string): ToolSpec => ({ name, description: name, parameters: { type: 'object' } });
const handoffTool = tool(HANDOFF_TOOL_NAME);
const spec = (id: string, handoffs: string[], tools: ToolSpec[] = []): AgentSpec => ({
  id,
  name: id,
  description: id,
  instructions: `You are ${id}.`,
  model: { provider: 'openai', model: 'm' },
  tools,
  handoffs,
  handoffTool,
});
/** `a` (with a `lookup` tool) and `b`, each able to hand off to the other. */
export const team: TeamSpec = {
  agents: { a: spec('a', ['b'], [tool('lookup')]), b: spec('b', ['a']) },
  approvals: [],
  hasHandoffListeners: false,
};
/** The tools agent `id` is offered: its own and the handoff tool. */
export const toolsOf = (id: string) => [...team.agents[id]!.tools, handoffTool];
/** The messages of agent `id`'s first call: its instructions and `text`. */
export const opening = (id: string, text: string): ChatMessage[] => [
  { role: 'system', content: `You are ${id}.` },
  { role: 'user', content: text },
];
/** A tool call as the model gives it. */
export const call = (id: string, name: string, args: unknown): ToolCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
});
/** A model's answer: `toolCalls` and `content`, one token each way. */
export const answer = (toolCalls: ToolCall[], content: string | null = null): ModelResponse => ({
  content,
  toolCalls,
  usage: { inputTokens: 1, outputTokens: 1 },
  model: 'm',
});
/** The assistant message that records answer `r`. */
export const assistant = (r: ModelResponse): ChatMessage => ({
  role: 'assistant',
  content: r.content,
  ...(r.toolCalls.length > 0 ? { toolCalls: r.toolCalls } : {}),
});
/** The tool messages that answer `calls`, one content each. */
export const toolAnswers = (calls: ToolCall[], contents: string[]): ChatMessage[] =>
  calls.map((c, i) => ({ role: 'tool', toolCallId: c.id, content: contents[i]! }));
/** A chain's result: `output` by `finalAgent`, with no handoffs and zero usage. */
export const result = (output: string, finalAgent: string): HandoffRunResult => ({
  output,
  finalAgent,
  handoffChain: [],
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, toolCalls: 0 },
});
/** The events of `kind` in `chain`. */
export const of = <K extends AuditEvent['kind']>(chain: AuditChain, kind: K) =>
  chain.events.filter((e): e is Extract<AuditEvent, { kind: K }> => e.kind === kind);
/** The audit of workflow `wf` whose runs (`run-1`, `run-2`, …) are the histories `runs` build. */
export const audit = (...runs: HistoryBuilder[]) =>
  buildAudit(
    'wf',
    runs.map((r, i) => ({ runId: `run-${i + 1}`, events: r.events() })),
  );
