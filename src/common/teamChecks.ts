/**
 * Checks of a team snapshot as the workflow takes it from outside (a carried state, another
 * program's start): model specs, agents with their tools, handoffs and delegations, and the team's
 * own settings.
 *
 * Workflow-safe: no I/O.
 */
import { approvalPolicyCheck, approvalRuleCheck } from './approvalPolicy';
import { rejectionReasonsProblems } from './approvalReasons';
import { approvalTimingCheck } from './approvalTiming';
import {
  arrayOf,
  boolean,
  type Check,
  count,
  either,
  integer,
  isRecord,
  names,
  nonEmptyString,
  number,
  object,
  oneOf,
  recordOf,
  shapeOf,
  shown,
  string,
} from './check';
import type {
  CustomModelSpec,
  ModelSpec,
  OpenAIModelSettings,
  OpenAIModelSpec,
  ScriptedModelSpec,
  ScriptedRule,
  ScriptedStep,
  ScriptedToolCall,
  ToolSpec,
} from './model';
import type {
  AgentProfile,
  AgentSpec,
  DelegateOptionsSpec,
  HandoffFilter,
  HandoffOptionsSpec,
  HandoffRule,
  TeamSpec,
} from './team';
import type { TeamVersion } from './version';
import { economicsSpecCheck } from './economics/checks';
import { toolSensitivityCheck } from './sensitive';
import { approverKeysCheck } from './signatures/keys';
import { jwksSourcesCheck, keySetRecordsCheck } from './signatures/jwks';
import { entryRulesProblems } from './authority/entryRules';
import { remoteAgentSpecCheck } from './remote';
import { notificationsSpecCheck } from './notifications';

const scriptedStep = shapeOf<ScriptedStep>()(
  {
    text: string,
    toolCalls: arrayOf(
      shapeOf<ScriptedToolCall>()({ name: nonEmptyString, arguments: object }),
      'tool calls {name, arguments}',
    ),
    handoff: shapeOf<NonNullable<ScriptedStep['handoff']>>()({ to: nonEmptyString, message: string }),
    failAttempts: integer(0, 100),
    delayMs: integer(0, 3_600_000),
    usage: shapeOf<NonNullable<ScriptedStep['usage']>>()({
      inputTokens: integer(0, Number.MAX_SAFE_INTEGER),
      outputTokens: integer(0, Number.MAX_SAFE_INTEGER),
    }),
  },
  ['text', 'toolCalls', 'handoff', 'failAttempts', 'delayMs', 'usage'],
);

const openaiSpec = shapeOf<OpenAIModelSpec>()(
  {
    provider: oneOf(['openai']),
    model: nonEmptyString,
    settings: shapeOf<OpenAIModelSettings>()(
      {
        temperature: number(0, 2),
        maxTokens: integer(1),
        baseURL: nonEmptyString,
        timeoutMs: integer(1, 3_600_000),
        stream: boolean,
      },
      ['temperature', 'maxTokens', 'baseURL', 'timeoutMs', 'stream'],
    ),
  },
  ['settings'],
);

const scriptedSpec = shapeOf<ScriptedModelSpec>()({
  provider: oneOf(['scripted']),
  model: nonEmptyString,
  steps: arrayOf(scriptedStep, 'scripted steps'),
  rules: arrayOf(
    shapeOf<ScriptedRule>()({ whenIncludes: string, reply: scriptedStep }),
    'scripted rules {whenIncludes, reply}',
  ),
  requireAllSteps: boolean,
});

const customSpec = shapeOf<CustomModelSpec>()({ provider: nonEmptyString, model: nonEmptyString, settings: object }, [
  'settings',
]);

/** Names a worker can register providers under. */
export const PROVIDER_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

/**
 * Problems with a model spec: `openai(...)`, `scripted(...)`, or `model(provider, name)` for a
 * provider the worker registers (which providers a worker has is checked when it starts).
 */
export const modelSpecCheck: Check<ModelSpec> = (v, key) => {
  if (!isRecord(v))
    return [
      `"${key}" must be a model spec: openai(...), aiSdk(...), scripted(...) or model(provider, name), got ${shown(v)}`,
    ];
  if (typeof v.specificationVersion === 'string')
    return [`"${key}" is an AI SDK model object: wrap it as aiSdk(model)`];
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
  return [
    `"${key}.provider" must name a model provider ("openai", "scripted", or one the worker registers), got ${shown(v.provider)}`,
  ];
};

const toolSpec = shapeOf<ToolSpec>()({ name: nonEmptyString, description: string, parameters: object });

const handoffRule = shapeOf<HandoffRule>()(
  {
    afterTools: names,
    whileTokensBelow: integer(0, Number.MAX_SAFE_INTEGER),
    whileHandoffsBelow: integer(0),
    whenContext: object,
  },
  ['afterTools', 'whileTokensBelow', 'whileHandoffsBelow', 'whenContext'],
);

const handoffOptionsSpec = shapeOf<HandoffOptionsSpec>()(
  {
    toolName: nonEmptyString,
    description: string,
    reason: string,
    context: oneOf(['message', 'full', 'last_user_message']),
    transferSystemMessage: boolean,
    filter: shapeOf<HandoffFilter>()(
      {
        dropToolCalls: boolean,
        lastMessages: integer(1),
        summarize: either(boolean, shapeOf<{ instructions?: string }>()({ instructions: string }, ['instructions'])),
      },
      ['dropToolCalls', 'lastMessages', 'summarize'],
    ),
    input: nonEmptyString,
    inputSchema: object,
    isEnabled: handoffRule,
    onHandoff: boolean,
    returnTo: nonEmptyString,
  },
  [
    'toolName',
    'description',
    'reason',
    'context',
    'transferSystemMessage',
    'filter',
    'input',
    'inputSchema',
    'isEnabled',
    'onHandoff',
    'returnTo',
  ],
);

const agentSpec = shapeOf<AgentSpec>()(
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
      shapeOf<DelegateOptionsSpec>()(
        {
          description: string,
          reason: string,
          maxTurns: integer(1),
          maxHandoffs: integer(0),
          timeout: either(string, count),
          onFailure: oneOf(['report', 'fail']),
          maxCost: number(0, 1e9),
        },
        ['description', 'reason', 'maxTurns', 'maxHandoffs', 'timeout', 'onFailure', 'maxCost'],
      ),
    ),
    delegateTool: toolSpec,
    profile: shapeOf<AgentProfile>()(
      {
        specialization: nonEmptyString,
        capabilities: names,
        description: string,
        examples: arrayOf(string, 'examples'),
        acceptsHandoffs: boolean,
      },
      ['description', 'examples', 'acceptsHandoffs'],
    ),
    routing: oneOf(['transfer', 'delegate']),
    outputSchema: object,
    approval: approvalPolicyCheck,
    guardrails: shapeOf<NonNullable<AgentSpec['guardrails']>>()(
      { input: arrayOf(object, 'guardrails'), output: arrayOf(object, 'guardrails') },
      ['input', 'output'],
    ),
    toolApprovals: recordOf(object),
    modelActivity: oneOf(['remote', 'local']),
    returnTo: nonEmptyString,
    toolSensitivity: recordOf(toolSensitivityCheck),
  },
  [
    'handoffTool',
    'handoffTools',
    'handoffToolTargets',
    'handoffOptions',
    'delegates',
    'delegateOptions',
    'delegateTool',
    'profile',
    'routing',
    'outputSchema',
    'approval',
    'guardrails',
    'toolApprovals',
    'modelActivity',
    'returnTo',
    'toolSensitivity',
  ],
);

const teamVersion = shapeOf<TeamVersion>()(
  { id: nonEmptyString, name: nonEmptyString, label: nonEmptyString, hash: nonEmptyString, parts: recordOf(string) },
  ['label'],
);

/** Problems with a team snapshot: its agents, their tools, handoffs and delegations, and the team's own settings. */
export const teamSpecCheck: Check<TeamSpec> = shapeOf<TeamSpec>()(
  {
    agents: recordOf(agentSpec),
    approvals: arrayOf(approvalRuleCheck, 'approval rules'),
    approvalPolicy: approvalTimingCheck,
    rejectionReasons: (v, at) => rejectionReasonsProblems(v, at),
    hasHandoffListeners: boolean,
    sharedState: boolean,
    version: teamVersion,
    teamAttribute: boolean,
    approvalAttributes: boolean,
    approverKeys: approverKeysCheck,
    runApproverKeys: boolean,
    jwks: jwksSourcesCheck,
    keySets: keySetRecordsCheck,
    operatorKeys: approverKeysCheck,
    requireOperatorPasskey: boolean,
    entry: (v) => entryRulesProblems(v),
    policyVersion: nonEmptyString,
    payloadLimit: integer(1, Number.MAX_SAFE_INTEGER),
    economics: economicsSpecCheck,
    remotes: recordOf(remoteAgentSpecCheck),
    notifications: notificationsSpecCheck,
  },
  [
    'approvalPolicy',
    'rejectionReasons',
    'sharedState',
    'version',
    'teamAttribute',
    'approvalAttributes',
    'approverKeys',
    'runApproverKeys',
    'jwks',
    'keySets',
    'operatorKeys',
    'requireOperatorPasskey',
    'entry',
    'policyVersion',
    'payloadLimit',
    'economics',
    'remotes',
    'notifications',
  ],
);
