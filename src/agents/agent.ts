import { z } from 'zod';
import { UserError } from '../common/errors';
import type { ApprovalPolicy } from '../common/approvals';
import { modelSpecCheck } from '../common/modelSpecChecks';
import type { ModelSpec } from '../common/model';
import { durationAtLeast } from '../common/check';
import { approvalPolicyCheck } from '../common/approvalPolicy';
import type { AgentProfile } from '../common/team';
import { type DelegateDeclaration, type HandoffDeclaration } from './handoff';
import { type AgentGuardrails, guardrailsProblems } from './guardrails';
import type { Tool } from './tool';
import { mcpServersProblems, type McpServer } from '../mcp/server';

/** How an agent is offered its handoffs: one `handoff` tool, or one tool per target. */
export type HandoffToolStyle = 'single' | 'per_target';

const CONTEXTS = ['message', 'full', 'last_user_message'];

/** Problems with a `handoff(target, options)` declaration, each naming the target. */
function declarationProblems(h: HandoffDeclaration): string[] {
  const at = `handoff("${String(h.to)}")`;
  const problems: string[] = [];
  if (typeof h.to !== 'string' || h.to === '') problems.push('handoff(target) needs a target agent id');
  if (h.context !== undefined && !CONTEXTS.includes(h.context))
    problems.push(
      `${at}.context must be ${CONTEXTS.map((c) => `"${c}"`).join(', ')}, got ${JSON.stringify(h.context)}`,
    );
  if (h.toolName !== undefined && !/^[a-zA-Z0-9_-]{1,64}$/.test(h.toolName))
    problems.push(`${at}.toolName must be 1-64 letters, digits, "_" or "-"`);
  if (h.input !== undefined && (typeof h.input !== 'string' || h.input.trim() === ''))
    problems.push(`${at}.input must be "message", "rich" or a template string`);
  if (h.inputType !== undefined && !(h.inputType instanceof z.ZodType))
    problems.push(`${at}.inputType must be a zod schema`);
  if (h.onHandoff !== undefined && typeof h.onHandoff !== 'function')
    problems.push(`${at}.onHandoff must be a function`);
  const n = h.filter?.lastMessages;
  if (n !== undefined && (!Number.isInteger(n) || n < 1))
    problems.push(`${at}.filter.lastMessages must be a whole number >= 1`);
  return problems;
}

/** An agent's definition. */
export interface AgentDefinition {
  /** Unique in the team: a letter, then letters, digits, `_` or `-`, at most 64. */
  id: string;
  /** Display name. @default the id */
  name?: string;
  /** What the agent is for; other agents' handoff tools show it. @default the name */
  description?: string;
  /** The system message. */
  instructions: string;
  /** e.g. `openai('gpt-4o-mini')` or `scripted({...})`. */
  model: ModelSpec;
  tools?: Tool[];
  /**
   * MCP servers whose tools this agent may call, named `<server>__<tool>`: the worker connects when
   * it starts and lists them, and each call is a `runTool` activity.
   * @example mcpServers: [mcpServer({ name: 'orders', command: 'node', args: ['orders-server.js'] })]
   */
  mcpServers?: readonly McpServer[];
  /**
   * Checks on what this agent receives (the run's input, a handoff's message) and on its final
   * answer; the agents it hands off to do not inherit them.
   * @example guardrails: { input: [guardrails.maxLength(4000)], output: [guardrails.pii(['credit_card'], { onTrip: 'feedback' })] }
   */
  guardrails?: AgentGuardrails;
  /** Where this agent's model calls run, over the run's `modelActivity` option: `remote` or `local` activities. */
  modelActivity?: 'remote' | 'local';
  /**
   * In a conversation, who answers the next message once this agent, handed a turn, has answered
   * it: this agent (`"stay"`), the agent that handed off to it (`"caller"`), or the agent with this
   * id. A handoff's own `returnTo` wins.
   * @default "stay"
   */
  returnTo?: 'stay' | 'caller' | (string & {});
  /**
   * The agents this one may hand off to: ids, or `handoff(id, options)` declarations for what a
   * handoff carries (list its own id to allow self-handoff). @default every other agent
   */
  handoffs?: (string | HandoffDeclaration | DelegateDeclaration)[];
  /**
   * How handoffs are offered: one `handoff({to, message})` tool, or one `transfer_to_<id>` tool per
   * target. @default the team's `handoffTools`, else "single"
   */
  handoffTools?: HandoffToolStyle;
  /**
   * What this agent is good at, for capability routing: other agents reach it through
   * `handoff_to_specialist` / `delegate_to_specialist` by specialization and capabilities.
   */
  profile?: AgentProfile;
  /** Offer this agent capability routing: `transfer` (`handoff_to_specialist`) or `delegate` (`delegate_to_specialist`). */
  routing?: 'transfer' | 'delegate';
  /**
   * The type of the agent's final answer, as a zod schema: the model is asked for JSON of this
   * shape, an answer that does not parse or match is sent back (at most `maxOutputRetries` times),
   * and the run's `output` is the parsed value. Use a `z.object` for OpenAI's structured outputs.
   * @example outputType: z.object({ refunded: z.boolean(), amount: z.number() })
   */
  outputType?: z.ZodType;
  /**
   * Human approval for every handoff into this agent.
   * @example approval: { approvers: ['alice'], timeout: '30 minutes', onTimeout: 'reject' }
   */
  approval?: ApprovalPolicy;
}

/** A validated agent. */
export interface Agent {
  readonly kind: 'agent';
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly instructions: string;
  readonly model: ModelSpec;
  readonly tools: readonly Tool[];
  /** The MCP servers whose tools this agent may call. */
  readonly mcpServers?: readonly McpServer[];
  readonly guardrails?: AgentGuardrails;
  readonly modelActivity?: 'remote' | 'local';
  readonly returnTo?: string;
  /** The ids this agent may hand off to, when given. */
  readonly handoffs?: readonly string[];
  /** The targets declared with options, by id. */
  readonly handoffDeclarations: Readonly<Record<string, HandoffDeclaration>>;
  readonly handoffTools?: HandoffToolStyle;
  /** The specialists declared with `delegate(id, options)`, by id. */
  readonly delegates: Readonly<Record<string, DelegateDeclaration>>;
  readonly profile?: AgentProfile;
  readonly routing?: 'transfer' | 'delegate';
  readonly outputType?: z.ZodType;
  readonly approval?: ApprovalPolicy;
}

/** Ids: a letter first, then letters, digits, `_` or `-`; usable in tool names and search attributes. */
export const AGENT_ID = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

/**
 * Define an agent; throws a {@link UserError} naming every problem.
 * @example
 * const triage = defineAgent({
 *   id: 'triage',
 *   instructions: 'Route the customer to the right specialist.',
 *   model: openai('gpt-4o-mini'),
 * });
 */
export function defineAgent(definition: AgentDefinition): Agent {
  const d = definition;
  const problems: string[] = [];
  if (typeof d.id !== 'string' || !AGENT_ID.test(d.id)) {
    problems.push(
      `id ${JSON.stringify(d.id)} must start with a letter and use only letters, digits, "_" or "-" (at most 64)`,
    );
  }
  if (typeof d.instructions !== 'string' || d.instructions.trim() === '')
    problems.push('instructions must be a non-empty string');
  problems.push(...modelSpecCheck(d.model, 'model'));
  const tools = d.tools ?? [];
  if (!Array.isArray(tools) || tools.some((t) => t?.kind !== 'tool'))
    problems.push('tools must be made with defineTool()');
  problems.push(...mcpServersProblems(d.mcpServers));
  problems.push(...guardrailsProblems(d.guardrails));
  if (d.returnTo !== undefined && (typeof d.returnTo !== 'string' || d.returnTo.trim() === ''))
    problems.push(`returnTo must be "stay", "caller" or an agent id, got ${JSON.stringify(d.returnTo)}`);
  if (d.modelActivity !== undefined && d.modelActivity !== 'remote' && d.modelActivity !== 'local')
    problems.push(`modelActivity must be "remote" or "local", got ${JSON.stringify(d.modelActivity)}`);
  if (
    d.handoffs !== undefined &&
    (!Array.isArray(d.handoffs) ||
      d.handoffs.some((h) => typeof h !== 'string' && h?.kind !== 'handoff' && h?.kind !== 'delegate'))
  ) {
    problems.push(
      "handoffs must be an array of agent ids, handoff('id', options) or delegate('id', options) declarations",
    );
  }
  if (d.profile !== undefined) problems.push(...profileProblems(d.profile));
  if (d.routing !== undefined && d.routing !== 'transfer' && d.routing !== 'delegate')
    problems.push(`routing must be "transfer" or "delegate", got ${JSON.stringify(d.routing)}`);
  if (d.handoffTools !== undefined && d.handoffTools !== 'single' && d.handoffTools !== 'per_target') {
    problems.push(`handoffTools must be "single" or "per_target", got ${JSON.stringify(d.handoffTools)}`);
  }
  for (const h of Array.isArray(d.handoffs) ? d.handoffs : []) {
    if (typeof h !== 'string' && h?.kind === 'handoff') problems.push(...declarationProblems(h));
    if (typeof h !== 'string' && h?.kind === 'delegate') problems.push(...delegateProblems(h));
  }
  if (d.approval !== undefined) problems.push(...approvalPolicyCheck(d.approval, 'approval'));
  if (d.outputType !== undefined && !(d.outputType instanceof z.ZodType))
    problems.push('outputType must be a zod schema, e.g. z.object({ answer: z.string() })');
  if (problems.length > 0) throw new UserError(`Invalid agent ${JSON.stringify(d.id)}: ${problems.join('; ')}`);
  const name = d.name ?? d.id;
  return {
    kind: 'agent',
    id: d.id,
    name,
    description: d.description ?? name,
    instructions: d.instructions,
    model: d.model,
    tools,
    ...(d.mcpServers?.length ? { mcpServers: [...d.mcpServers] } : {}),
    ...(d.guardrails
      ? {
          guardrails: {
            ...(d.guardrails.input ? { input: [...d.guardrails.input] } : {}),
            ...(d.guardrails.output ? { output: [...d.guardrails.output] } : {}),
          },
        }
      : {}),
    handoffs: d.handoffs
      ? d.handoffs.flatMap((h) => (typeof h === 'string' ? [h] : h.kind === 'handoff' ? [h.to] : []))
      : undefined,
    handoffDeclarations: Object.fromEntries(
      (d.handoffs ?? []).flatMap((h) => (typeof h !== 'string' && h.kind === 'handoff' ? [[h.to, h]] : [])),
    ),
    delegates: Object.fromEntries(
      (d.handoffs ?? []).flatMap((h) => (typeof h !== 'string' && h.kind === 'delegate' ? [[h.to, h]] : [])),
    ),
    ...(d.profile ? { profile: { ...d.profile } } : {}),
    ...(d.routing ? { routing: d.routing } : {}),
    ...(d.handoffTools ? { handoffTools: d.handoffTools } : {}),
    ...(d.approval ? { approval: { ...d.approval } } : {}),
    ...(d.modelActivity ? { modelActivity: d.modelActivity } : {}),
    ...(d.returnTo !== undefined ? { returnTo: d.returnTo } : {}),
    ...(d.outputType ? { outputType: d.outputType } : {}),
  };
}

/** Problems with a `delegate(target, options)` declaration, each naming the target. */
function delegateProblems(d: DelegateDeclaration): string[] {
  const at = `delegate("${String(d.to)}")`;
  const problems = typeof d.to === 'string' && d.to !== '' ? [] : ['delegate(target) needs a target agent id'];
  for (const key of ['maxTurns', 'maxHandoffs'] as const) {
    const n = d[key];
    if (n !== undefined && (!Number.isInteger(n) || n < (key === 'maxTurns' ? 1 : 0)))
      problems.push(`${at}.${key} must be a whole number`);
  }
  if (d.onFailure !== undefined && d.onFailure !== 'report' && d.onFailure !== 'fail')
    problems.push(`${at}.onFailure must be "report" or "fail"`);
  if (
    d.maxCost !== undefined &&
    (typeof d.maxCost !== 'number' || !Number.isFinite(d.maxCost) || d.maxCost <= 0 || d.maxCost > 1e9)
  )
    problems.push(
      `${at}.maxCost must be an amount above 0 in the currency of the team's prices, got ${String(d.maxCost)}`,
    );
  problems.push(...(d.timeout !== undefined ? durationAtLeast(1000, '1 second')(d.timeout, `${at}.timeout`) : []));
  return problems;
}

/** Problems with an agent's capability profile. */
function profileProblems(p: AgentProfile): string[] {
  const problems: string[] = [];
  if (typeof p?.specialization !== 'string' || p.specialization.trim() === '')
    problems.push('profile.specialization must be a non-empty string');
  if (!Array.isArray(p?.capabilities) || p.capabilities.some((c) => typeof c !== 'string'))
    problems.push('profile.capabilities must be a list of strings');
  return problems;
}
