/**
 * Delegation and capability routing as the model sees them: the `delegate` tool, the specialist
 * tools, reading their calls, and choosing a specialist by its declared profile.
 * Workflow-safe: no I/O, no zod.
 */
import type { JsonSchema, ToolCall, ToolSpec } from './model';
import type { AgentProfile, AgentSpec, DelegateOptionsSpec, TeamSpec } from './team';

/** The tool an agent with delegates gets: `delegate({to, task, reason, context?})`. */
export const DELEGATE_TOOL_NAME = 'delegate';
/** Capability routing that transfers control: `handoff_to_specialist(...)`. */
export const SPECIALIST_HANDOFF_TOOL_NAME = 'handoff_to_specialist';
/** Capability routing that delegates: `delegate_to_specialist(...)`. */
export const SPECIALIST_DELEGATE_TOOL_NAME = 'delegate_to_specialist';

/** A task an agent hands to a specialist who answers back. */
export interface DelegationRequest {
  from: string;
  to: string;
  task: string;
  reason: string;
  context?: string;
  /** Capabilities the task needs (capability routing). */
  requiredCapabilities?: string[];
}

/** A request to route by capability, before a specialist is chosen. */
export interface SpecialistRequest {
  specialistType: string;
  task: string;
  reason: string;
  context?: string;
  requiredCapabilities: string[];
}

const str = (description: string): JsonSchema => ({ type: 'string', description });

/** The `delegate` tool of agent `agentId` for its delegate targets. */
export function delegateToolSpec(
  agentId: string,
  targets: { id: string; description: string; options?: DelegateOptionsSpec }[],
): ToolSpec | undefined {
  if (targets.length === 0) return undefined;
  const lines = targets.map(
    (t) => `- ${t.id}: ${t.options?.description ?? t.description}${t.options?.reason ? ` (${t.options.reason})` : ''}`,
  );
  return {
    name: DELEGATE_TOOL_NAME,
    description:
      "Give a task to a specialist, who works on it and answers back; you stay in charge and get the answer as this tool's result. " +
      `Several calls in one turn run in parallel. Specialists:\n${lines.join('\n')}`,
    parameters: {
      type: 'object',
      properties: {
        to: { type: 'string', enum: targets.map((t) => t.id), description: 'The specialist' },
        task: str('What the specialist must do, with everything it needs'),
        reason: str('Why this specialist'),
        context: str('Optional: background the specialist should know'),
      },
      required: ['to', 'task', 'reason'],
      additionalProperties: false,
    },
  };
}

/** The capability-routing tool, named `name`, listing the specializations of the team's profiles. */
export function specialistToolSpec(name: string, team: Pick<TeamSpec, 'agents'>, from: string): ToolSpec | undefined {
  const profiles = Object.values(team.agents).filter(
    (a) => a.id !== from && a.profile && a.profile.acceptsHandoffs !== false,
  );
  if (profiles.length === 0) return undefined;
  const kinds = [...new Set(profiles.map((a) => a.profile!.specialization))];
  const how = name === SPECIALIST_DELEGATE_TOOL_NAME ? 'who answers back to you' : 'who takes the work over';
  return {
    name,
    description: `Send the task to a specialist chosen by what it can do, ${how}. Specializations: ${kinds.join(', ')}.`,
    parameters: {
      type: 'object',
      properties: {
        specialist_type: {
          type: 'string',
          description: `The kind of specialist, e.g. ${kinds.map((k) => JSON.stringify(k)).join(', ')}`,
        },
        task: str('What the specialist must do, with everything it needs'),
        reason: str('Why a specialist is needed'),
        context: str('Optional: background the specialist should know'),
        required_capabilities: {
          type: 'array',
          items: { type: 'string' },
          description: 'Optional: capabilities the specialist must have',
        },
      },
      required: ['specialist_type', 'task', 'reason'],
      additionalProperties: false,
    },
  };
}

function parse(call: ToolCall): Record<string, unknown> | string {
  try {
    const args = JSON.parse(call.arguments || '{}') as unknown;
    return typeof args === 'object' && args !== null && !Array.isArray(args)
      ? (args as Record<string, unknown>)
      : `Invalid arguments for ${call.name}: expected an object`;
  } catch {
    return `Invalid arguments for ${call.name}: not valid JSON`;
  }
}

/** Read a `delegate` call: the request, or what is wrong with it. */
export function readDelegation(call: ToolCall, from: string): DelegationRequest | string {
  const a = parse(call);
  if (typeof a === 'string') return a;
  if (typeof a.to !== 'string' || a.to === '' || typeof a.task !== 'string' || a.task.trim() === '') {
    return `Invalid arguments for ${call.name}: expected {"to": string, "task": string, "reason": string, "context"?: string}, got ${call.arguments}`;
  }
  return {
    from,
    to: a.to,
    task: a.task,
    reason: typeof a.reason === 'string' ? a.reason : '',
    ...(typeof a.context === 'string' ? { context: a.context } : {}),
  };
}

/** Read a specialist tool call: the request, or what is wrong with it. */
export function readSpecialistRequest(call: ToolCall): SpecialistRequest | string {
  const a = parse(call);
  if (typeof a === 'string') return a;
  if (typeof a.specialist_type !== 'string' || typeof a.task !== 'string' || a.task.trim() === '') {
    return `Invalid arguments for ${call.name}: expected {"specialist_type": string, "task": string, "reason": string}, got ${call.arguments}`;
  }
  const required = Array.isArray(a.required_capabilities)
    ? a.required_capabilities.filter((c): c is string => typeof c === 'string')
    : [];
  return {
    specialistType: a.specialist_type,
    task: a.task,
    reason: typeof a.reason === 'string' ? a.reason : '',
    ...(typeof a.context === 'string' ? { context: a.context } : {}),
    requiredCapabilities: required,
  };
}

/** The profiled agents that could take a request from `from`. */
export function specialists(team: Pick<TeamSpec, 'agents'>, from: string): AgentSpec[] {
  return Object.values(team.agents).filter((a) => a.id !== from && a.profile && a.profile.acceptsHandoffs !== false);
}

/**
 * The specialist a request goes to, chosen in the workflow: one whose specialization is the type
 * asked for (or who lists it among its capabilities) and who has every required capability; of
 * several, the one with the most matching capabilities, then the first in team order. `undefined`
 * when none fits (an LLM router then decides).
 */
export function matchSpecialist(
  team: Pick<TeamSpec, 'agents'>,
  from: string,
  request: SpecialistRequest,
): string | undefined {
  return matchingSpecialists(team, from, request)[0];
}

/** Every specialist that fits a request best (the most matching capabilities), in team order: a routing strategy picks among them. */
export function matchingSpecialists(
  team: Pick<TeamSpec, 'agents'>,
  from: string,
  request: SpecialistRequest,
): string[] {
  const norm = (s: string) => s.trim().toLowerCase();
  const type = norm(request.specialistType);
  const required = request.requiredCapabilities.map(norm);
  let best: { ids: string[]; score: number } | undefined;
  for (const agent of specialists(team, from)) {
    const profile = agent.profile as AgentProfile;
    const capabilities = profile.capabilities.map(norm);
    if (norm(profile.specialization) !== type && !capabilities.includes(type)) continue;
    if (!required.every((c) => capabilities.includes(c))) continue;
    const score = required.length + (norm(profile.specialization) === type ? 1 : 0);
    if (!best || score > best.score) best = { ids: [agent.id], score };
    else if (score === best.score) best.ids.push(agent.id);
  }
  return best?.ids ?? [];
}
