/**
 * The handoff tools as the model sees them, built as plain JSON Schema so the workflow can offer
 * each turn only the targets whose `isEnabled` rule holds. Workflow-safe: no I/O, no zod.
 */
import { HANDOFF_TOOL_NAME, READ_STATE_TOOL_NAME, TRANSFER_TOOL_PREFIX } from './handoff';
import type { JsonSchema, ToolSpec } from './model';
import type { HandoffOptionsSpec } from './team';

/** A target as the handoff tools describe it. */
export interface HandoffTarget {
  id: string;
  description: string;
  options?: HandoffOptionsSpec;
}

const MESSAGE: JsonSchema = {
  type: 'string',
  description: 'Everything the next agent needs: the task, what is known, what is done',
};

const UPDATE: JsonSchema = {
  type: 'object',
  description: 'Optional: what to add to the shared state every later agent can read',
  properties: {
    context: {
      type: 'object',
      description: 'Facts for every later agent, merged key by key',
      additionalProperties: {},
    },
    artifacts: { type: 'array', description: 'Results to keep, appended', items: {} },
    workflowState: {
      type: 'object',
      description: 'Where the work stands, merged key by key',
      additionalProperties: {},
    },
  },
  additionalProperties: false,
};

/** The built-in tool that reads the run's shared state (teams with `sharedState`). */
export const READ_STATE_TOOL: ToolSpec = {
  name: READ_STATE_TOOL_NAME,
  description: 'Read the shared state earlier agents handed on: context, artifacts and workflowState.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
};

function line(agentId: string, t: HandoffTarget): string {
  if (t.id === agentId) return `- ${t.id}: yourself, starting afresh with your message as the new input`;
  return `- ${t.id}: ${t.options?.description ?? t.description}${t.options?.reason ? ` (${t.options.reason})` : ''}`;
}

function object(properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false };
}

/**
 * The single `handoff` tool of agent `agentId`: `to` is an enum of the targets and the description
 * lists each with its description. `undefined` when there is no target.
 */
export function handoffToolSpec(agentId: string, targets: HandoffTarget[], sharedState = false): ToolSpec | undefined {
  if (targets.length === 0) return undefined;
  const typed = targets.filter((t) => t.options?.inputSchema);
  const properties: Record<string, JsonSchema> = {
    to: { type: 'string', enum: targets.map((t) => t.id), description: 'The id of the agent to hand off to' },
    message: MESSAGE,
  };
  if (sharedState) properties.update = UPDATE;
  if (typed.length > 0) {
    properties.input = {
      description: `Required for ${typed.map((t) => t.id).join(', ')}: the handoff's input, as described for that target`,
      anyOf: typed.map((t) => t.options!.inputSchema!),
    };
  }
  const inputs = typed
    .map((t) => `\nHandoffs to ${t.id} also need "input": ${JSON.stringify(t.options!.inputSchema)}`)
    .join('');
  return {
    name: HANDOFF_TOOL_NAME,
    description:
      'Hand the work to another agent, who continues with your message as its input. ' +
      `Call it at most once per turn. Available agents:\n${targets.map((t) => line(agentId, t)).join('\n')}${inputs}`,
    parameters: object(properties, ['to', 'message']),
  };
}

/** The name of the per-target tool for `target`. */
export function transferToolName(target: Pick<HandoffTarget, 'id' | 'options'>): string {
  return target.options?.toolName ?? `${TRANSFER_TOOL_PREFIX}${target.id}`;
}

/** One tool per target (`transfer_to_<id>`), OpenAI Agents SDK and LangGraph style. */
export function transferToolSpecs(agentId: string, targets: HandoffTarget[], sharedState = false): ToolSpec[] {
  return targets.map((t) => {
    const properties: Record<string, JsonSchema> = { message: MESSAGE };
    if (sharedState) properties.update = UPDATE;
    if (t.options?.inputSchema) properties.input = t.options.inputSchema;
    return {
      name: transferToolName(t),
      description: `Hand the work to ${line(agentId, t).slice(2)}. Call at most one handoff tool per turn.`,
      parameters: object(properties, t.options?.inputSchema ? ['message', 'input'] : ['message']),
    };
  });
}
