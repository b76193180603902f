/**
 * Checks of a team snapshot as the workflow takes it from outside (a carried state, another
 * program's start): agents with their tools, handoffs and delegations, and the team's own settings.
 * The agents' model specs are checked in modelSpecChecks.ts.
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
  names,
  nonEmptyString,
  number,
  object,
  oneOf,
  recordOf,
  shapeOf,
  string,
} from './check';
import type { ToolSpec } from './model';
import { modelSpecCheck } from './modelSpecChecks';
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
import { toolSensitivityCheck } from './sensitivityChecks';
import { approverKeysCheck } from './signatures/keys';
import { jwksSourcesCheck, keySetRecordsCheck } from './signatures/jwks';
import { entryRulesProblems } from './authority/entryRules';
import { remoteAgentSpecCheck } from './remote';
import { notificationsSpecCheck } from './notifications';

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
