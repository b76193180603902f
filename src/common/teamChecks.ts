/**
 * Checks of a team snapshot as the workflow takes it from outside (a carried state, another
 * program's start): model specs, agents with their tools, handoffs and delegations, and the team's
 * own settings.
 *
 * Workflow-safe: no I/O.
 */
import { approvalPolicyCheck, approvalRuleCheck } from './approvalPolicy';
import { arrayOf, boolean, type Check, count, either, integer, isRecord, names, nonEmptyString, number, object, oneOf, recordOf, shape, shown, string } from './check';
import { economicsSpecCheck } from './economics/checks';
import { toolSensitivityCheck } from './sensitive';
import { approverKeysCheck } from './signatures/keys';

const scriptedStep: Check = shape(
  {
    text: string,
    toolCalls: arrayOf(shape({ name: nonEmptyString, arguments: object }), 'tool calls {name, arguments}'),
    handoff: shape({ to: nonEmptyString, message: string }),
    failAttempts: integer(0, 100),
    delayMs: integer(0, 3_600_000),
    usage: shape({ inputTokens: integer(0, Number.MAX_SAFE_INTEGER), outputTokens: integer(0, Number.MAX_SAFE_INTEGER) }),
  },
  ['text', 'toolCalls', 'handoff', 'failAttempts', 'delayMs', 'usage'],
);

const openaiSpec = shape(
  {
    provider: oneOf(['openai']),
    model: nonEmptyString,
    settings: shape(
      { temperature: number(0, 2), maxTokens: integer(1), baseURL: nonEmptyString, timeoutMs: integer(1, 3_600_000), stream: boolean },
      ['temperature', 'maxTokens', 'baseURL', 'timeoutMs', 'stream'],
    ),
  },
  ['settings'],
);

const scriptedSpec = shape({
  provider: oneOf(['scripted']),
  model: nonEmptyString,
  steps: arrayOf(scriptedStep, 'scripted steps'),
  rules: arrayOf(shape({ whenIncludes: string, reply: scriptedStep }), 'scripted rules {whenIncludes, reply}'),
  requireAllSteps: boolean,
});

const customSpec = shape({ provider: nonEmptyString, model: nonEmptyString, settings: object }, ['settings']);

/** Names a worker can register providers under. */
export const PROVIDER_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

/**
 * Problems with a model spec: `openai(...)`, `scripted(...)`, or `model(provider, name)` for a
 * provider the worker registers (which providers a worker has is checked when it starts).
 */
export const modelSpecCheck: Check = (v, key) => {
  if (!isRecord(v)) return [`"${key}" must be a model spec: openai(...), scripted(...) or model(provider, name), got ${shown(v)}`];
  if (v.provider === 'openai') return openaiSpec(v, key);
  if (v.provider === 'scripted') {
    const problems = scriptedSpec(v, key);
    (Array.isArray(v.steps) ? v.steps : []).forEach((step, i) => {
      if (isRecord(step) && step.text === undefined && step.toolCalls === undefined && step.handoff === undefined) {
        problems.push(`"${key}.steps[${i}]" needs text, toolCalls or handoff`);
      }
    });
    return problems;
  }
  if (typeof v.provider === 'string' && PROVIDER_NAME.test(v.provider)) return customSpec(v, key);
  return [`"${key}.provider" must name a model provider ("openai", "scripted", or one the worker registers), got ${shown(v.provider)}`];
};

const toolSpec = shape({ name: nonEmptyString, description: string, parameters: object });

const handoffRule = shape(
  { afterTools: names, whileTokensBelow: integer(0, Number.MAX_SAFE_INTEGER), whileHandoffsBelow: integer(0), whenContext: object },
  ['afterTools', 'whileTokensBelow', 'whileHandoffsBelow', 'whenContext'],
);

const handoffOptionsSpec = shape(
  {
    toolName: nonEmptyString,
    description: string,
    reason: string,
    context: oneOf(['message', 'full', 'last_user_message']),
    transferSystemMessage: boolean,
    filter: shape({ dropToolCalls: boolean, lastMessages: integer(1), summarize: either(boolean, shape({ instructions: string }, ['instructions'])) }, ['dropToolCalls', 'lastMessages', 'summarize']),
    input: nonEmptyString,
    inputSchema: object,
    isEnabled: handoffRule,
    onHandoff: boolean,
  },
  ['toolName', 'description', 'reason', 'context', 'transferSystemMessage', 'filter', 'input', 'inputSchema', 'isEnabled', 'onHandoff'],
);

const agentSpec = shape(
  {
    id: nonEmptyString,
    name: string,
    description: string,
    instructions: string,
    model: modelSpecCheck,
    tools: arrayOf(toolSpec, 'tool specs'),
    handoffs: names,
    handoffTool: toolSpec,
    handoffTools: arrayOf(toolSpec, 'tool specs'),
    handoffToolTargets: recordOf(nonEmptyString),
    handoffOptions: recordOf(handoffOptionsSpec),
    delegates: names,
    delegateOptions: recordOf(
      shape(
        { description: string, reason: string, maxTurns: integer(1), maxHandoffs: integer(0), timeout: either(string, count), onFailure: oneOf(['report', 'fail']), maxCost: number(0, 1e9) },
        ['description', 'reason', 'maxTurns', 'maxHandoffs', 'timeout', 'onFailure', 'maxCost'],
      ),
    ),
    delegateTool: toolSpec,
    profile: shape({ specialization: nonEmptyString, capabilities: names, description: string, examples: arrayOf(string, 'examples'), acceptsHandoffs: boolean }, ['description', 'examples', 'acceptsHandoffs']),
    routing: oneOf(['transfer', 'delegate']),
    outputSchema: object,
    approval: approvalPolicyCheck,
    guardrails: shape({ input: arrayOf(object, 'guardrails'), output: arrayOf(object, 'guardrails') }, ['input', 'output']),
    toolApprovals: recordOf(object),
    modelActivity: oneOf(['remote', 'local']),
    toolSensitivity: recordOf(toolSensitivityCheck),
  },
  ['handoffTool', 'handoffTools', 'handoffToolTargets', 'handoffOptions', 'delegates', 'delegateOptions', 'delegateTool', 'profile', 'routing', 'outputSchema', 'approval', 'guardrails', 'toolApprovals', 'modelActivity', 'toolSensitivity'],
);

const teamVersion = shape({ id: nonEmptyString, name: nonEmptyString, label: nonEmptyString, hash: nonEmptyString, parts: recordOf(string) }, ['label']);

/** Problems with a team snapshot: its agents, their tools, handoffs and delegations, and the team's own settings. */
export const teamSpecCheck: Check = shape(
  {
    agents: recordOf(agentSpec),
    approvals: arrayOf(approvalRuleCheck, 'approval rules'),
    hasHandoffListeners: boolean,
    sharedState: boolean,
    version: teamVersion,
    teamAttribute: boolean,
    approverKeys: approverKeysCheck,
    runApproverKeys: boolean,
    payloadLimit: integer(1, Number.MAX_SAFE_INTEGER),
    economics: economicsSpecCheck,
  },
  ['sharedState', 'version', 'teamAttribute', 'approverKeys', 'runApproverKeys', 'payloadLimit', 'economics'],
);
