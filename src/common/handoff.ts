/**
 * The handoff tool's wire format, and reading it back from a model's tool call.
 * Workflow-safe: the workflow parses handoff calls itself, with no activity.
 */
import type { ToolCall } from './types';

/** Name of the tool injected into every agent of a team of two or more. */
export const HANDOFF_TOOL_NAME = 'handoff';

/** A handoff the model asked for. */
export interface HandoffResult {
  kind: 'handoff';
  from: string;
  to: string;
  message: string;
}

/** Type guard for {@link HandoffResult}. */
export function isHandoffResult(value: unknown): value is HandoffResult {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.kind === 'handoff' && typeof v.from === 'string' && typeof v.to === 'string' && typeof v.message === 'string';
}

/** Whether a tool call is a call of the handoff tool. */
export function isHandoffCall(call: ToolCall): boolean {
  return call.name === HANDOFF_TOOL_NAME;
}

/**
 * Read a handoff from a tool call of agent `from`: a {@link HandoffResult}, or a string saying what is
 * wrong with the arguments (sent back to the model as the tool's result). `null` when the call is not
 * a handoff call.
 */
export function extractHandoff(call: ToolCall, from: string): HandoffResult | string | null {
  if (!isHandoffCall(call)) return null;
  let args: unknown;
  try {
    args = JSON.parse(call.arguments || '{}');
  } catch {
    return `Invalid arguments for ${HANDOFF_TOOL_NAME}: not valid JSON. Expected {"to": string, "message": string}.`;
  }
  const a = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
  if (typeof a.to !== 'string' || a.to.length === 0 || typeof a.message !== 'string') {
    return `Invalid arguments for ${HANDOFF_TOOL_NAME}: expected {"to": string, "message": string}, got ${call.arguments}`;
  }
  return { kind: 'handoff', from, to: a.to, message: a.message };
}
