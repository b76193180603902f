/**
 * Checks of the model specs a team snapshot names for its agents: `openai(...)`, `scripted(...)`
 * with its steps and rules, and `model(provider, name)` for a provider a worker registers
 * (teamChecks.ts).
 *
 * Workflow-safe: no I/O.
 */
import {
  arrayOf,
  boolean,
  type Check,
  integer,
  isRecord,
  nonEmptyString,
  number,
  object,
  oneOf,
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
} from './model';

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
