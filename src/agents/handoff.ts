import { z } from 'zod';
import { HANDOFF_TOOL_NAME } from '../common/handoff';
import type { ToolSpec } from '../common/model';
import { toParametersSchema } from './tool';

/** A target as the handoff tool describes it. */
export interface HandoffTarget {
  id: string;
  description: string;
}

/**
 * The `handoff` tool of agent `agentId`: `to` is an enum of the allowed targets and the
 * description lists each target with its description. `undefined` when there is no target.
 */
export function createHandoffTool(agentId: string, targets: HandoffTarget[]): ToolSpec | undefined {
  if (targets.length === 0) return undefined;
  const ids = targets.map((t) => t.id) as [string, ...string[]];
  const lines = targets.map((t) =>
    t.id === agentId ? `- ${t.id}: yourself, starting afresh with your message as the new input` : `- ${t.id}: ${t.description}`,
  );
  const parameters = z.object({
    to: z.enum(ids).describe('The id of the agent to hand off to'),
    message: z.string().describe('Everything the next agent needs: the task, what is known, what is done'),
  });
  return {
    name: HANDOFF_TOOL_NAME,
    description:
      'Hand the work to another agent, who continues with your message as its input. ' +
      `Call it at most once per turn. Available agents:\n${lines.join('\n')}`,
    parameters: toParametersSchema(parameters),
  };
}
