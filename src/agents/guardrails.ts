/**
 * Guardrails: checks on what an agent receives and on its final answer, declared with the agent
 * and never inherited by the agents it hands off to. Built-ins (length, patterns, personal data,
 * a JSON Schema) run in the workflow; custom ones run in the worker as the `checkGuardrail`
 * activity, so a model-based check is retried and recorded like any call.
 */
import { z } from 'zod';
import {
  PII_KINDS,
  type GuardrailSpec,
  type GuardrailTripPolicy,
  type GuardrailVerdict,
  type PiiKind,
} from '../common/controls';
import { UserError } from '../common/errors';
import type { JsonSchema } from '../common/model';
import type { AgentSpec, RunContext } from '../common/team';
import { toJsonSchema } from './tool';

/** What a custom guardrail's `check` receives besides the text. */
export interface GuardrailContext<Context extends RunContext = RunContext> {
  agentId: string;
  /** `input`: the run's input or a handoff's message to the agent; `output`: the agent's final answer. */
  stage: 'input' | 'output';
  /** The run's application context (`{}` when none). */
  context: Context;
}

/**
 * A custom guardrail's answer: `{tripped, reason}`, or just the reason it trips (a string, or
 * `true` without one); `false`, `undefined` or `null` when the text passes.
 */
export type GuardrailAnswer = GuardrailVerdict | string | boolean | null | undefined;

/** A guardrail, ready for `defineAgent({ guardrails: { input: [...], output: [...] } })`. */
export interface Guardrail {
  readonly kind: 'guardrail';
  /** What the team snapshot records. */
  readonly spec: GuardrailSpec;
  /** A custom guardrail's check, run by the worker. */
  readonly check?: (text: string, context: GuardrailContext) => GuardrailAnswer | Promise<GuardrailAnswer>;
}

/** Options every guardrail takes. */
export interface GuardrailOptions {
  /** Shown in errors, the audit and feedback; unique among an agent's input (or output) guardrails. */
  name?: string;
  /** @default "fail" */
  onTrip?: GuardrailTripPolicy;
}

const NAME = /^[a-zA-Z0-9_.:-]{1,64}$/;

function make(spec: GuardrailSpec, check?: Guardrail['check']): Guardrail {
  const problems: string[] = [];
  if (!NAME.test(spec.name))
    problems.push(`name ${JSON.stringify(spec.name)} must be 1-64 letters, digits, "_", ".", ":" or "-"`);
  if (spec.onTrip !== undefined && spec.onTrip !== 'fail' && spec.onTrip !== 'feedback')
    problems.push(`onTrip must be "fail" or "feedback", got ${JSON.stringify(spec.onTrip)}`);
  if (problems.length > 0) throw new UserError(`Invalid guardrail: ${problems.join('; ')}`);
  return { kind: 'guardrail', spec, ...(check ? { check } : {}) };
}

/** The options each kind of guardrail takes. */
const OPTIONS: Record<GuardrailSpec['kind'], readonly string[]> = {
  maxLength: ['name', 'onTrip'],
  pattern: ['name', 'onTrip', 'message'],
  pii: ['name', 'onTrip'],
  jsonSchema: ['name', 'onTrip'],
  custom: ['name', 'onTrip', 'check'],
};

/** The name (the kind unless given) and trip policy of a guardrail; an option it does not take (a typo such as `ontrip`) is refused. */
function base(
  options: GuardrailOptions | undefined,
  kind: GuardrailSpec['kind'],
): Pick<GuardrailSpec, 'name' | 'onTrip'> {
  const valid = OPTIONS[kind];
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) {
    throw new UserError(
      `Invalid guardrail: the options of guardrails.${kind}() must be an object {${valid.join(', ')}}, got ${given(options)}`,
    );
  }
  const unknown = Object.keys(options ?? {}).filter((k) => !valid.includes(k));
  if (unknown.length > 0)
    throw new UserError(
      `Invalid guardrail: guardrails.${kind}() has unknown option(s) ${unknown.map((k) => `"${k}"`).join(', ')} (valid: ${valid.join(', ')})`,
    );
  return { name: options?.name ?? kind, ...(options?.onTrip ? { onTrip: options.onTrip } : {}) };
}

/** A bad argument as a message shows it (`Infinity` and `NaN` too, which JSON writes as null). */
function given(value: unknown): string {
  return typeof value === 'number' || value === undefined ? String(value) : JSON.stringify(value);
}

/** The guardrails baton provides; see each for what trips it. */
export const guardrails = {
  /** Trips on text longer than `max` characters. */
  maxLength(max: number, options?: GuardrailOptions): Guardrail {
    if (!Number.isInteger(max) || max < 1)
      throw new UserError(`Invalid guardrail: maxLength(max) needs a whole number >= 1, got ${given(max)}`);
    return make({ ...base(options, 'maxLength'), kind: 'maxLength', max });
  },
  /** Trips on text that matches `pattern`; `message` is the reason given (the match is quoted otherwise). */
  pattern(pattern: RegExp, options?: GuardrailOptions & { message?: string }): Guardrail {
    if (!(pattern instanceof RegExp))
      throw new UserError(`Invalid guardrail: pattern(re) needs a RegExp, got ${given(pattern)}`);
    // The workflow looks for a match anywhere in the text: a sticky RegExp would only look at its start.
    if (pattern.sticky)
      throw new UserError(
        `Invalid guardrail: pattern(re) does not take the sticky flag "y" (it would match only at the start of the text; use ^ for that), got /${pattern.source}/${pattern.flags}`,
      );
    if (options?.message !== undefined && (typeof options.message !== 'string' || options.message.trim() === '')) {
      throw new UserError(
        `Invalid guardrail: pattern(re, {message}) needs a non-empty message (the reason the agent is given), got ${given(options.message)}`,
      );
    }
    return make({
      ...base(options, 'pattern'),
      kind: 'pattern',
      pattern: pattern.source,
      ...(pattern.flags ? { flags: pattern.flags } : {}),
      ...(options?.message ? { message: options.message } : {}),
    });
  },
  /** Trips on personal data: e-mail addresses, phone numbers, US social security numbers, card numbers (Luhn-checked), IBANs. */
  pii(types: PiiKind[] = [...PII_KINDS], options?: GuardrailOptions): Guardrail {
    const unknown = Array.isArray(types) ? types.filter((t) => !PII_KINDS.includes(t)) : [String(types)];
    if (unknown.length > 0 || types.length === 0)
      throw new UserError(
        `Invalid guardrail: pii(types) takes some of ${PII_KINDS.join(', ')}, got ${JSON.stringify(types)}`,
      );
    return make({ ...base(options, 'pii'), kind: 'pii', types: [...types] });
  },
  /** Trips unless the text is JSON matching `schema` (a zod schema or a JSON Schema). */
  jsonSchema(schema: z.ZodType | JsonSchema, options?: GuardrailOptions): Guardrail {
    let json: unknown;
    try {
      json = schema instanceof z.ZodType ? toJsonSchema(schema) : schema;
    } catch (err) {
      throw new UserError(
        `Invalid guardrail: jsonSchema(schema) needs a zod schema that converts to JSON Schema: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      throw new UserError('Invalid guardrail: jsonSchema(schema) needs a zod schema or a JSON Schema object');
    return make({ ...base(options, 'jsonSchema'), kind: 'jsonSchema', schema: json as JsonSchema });
  },
  /**
   * Your own check, run by the worker as the `checkGuardrail` activity (retried like a tool call):
   * a model, a moderation API, a database lookup.
   * @example guardrails.custom({ name: 'on-topic', onTrip: 'feedback', check: async (text) => (await classify(text)) === 'off-topic' && 'stay on the customer's order' })
   */
  custom<Context extends RunContext = RunContext>(
    options: GuardrailOptions & {
      name: string;
      check: (text: string, context: GuardrailContext<Context>) => GuardrailAnswer | Promise<GuardrailAnswer>;
    },
  ): Guardrail {
    if (typeof options?.check !== 'function')
      throw new UserError('Invalid guardrail: custom({name, check}) needs a check function');
    if (typeof options.name !== 'string') throw new UserError('Invalid guardrail: custom({name, check}) needs a name');
    return make({ ...base(options, 'custom'), kind: 'custom' }, options.check as Guardrail['check']);
  },
};

/** An agent's guardrails, as `defineAgent` takes them. */
export interface AgentGuardrails {
  /** Checked on the run's input when the agent starts the chain, and on each handoff's message to it. */
  input?: Guardrail[];
  /** Checked on the agent's final answer. */
  output?: Guardrail[];
}

/** Problems with an agent's guardrails. */
export function guardrailsProblems(g: AgentGuardrails | undefined): string[] {
  if (g === undefined) return [];
  if (Array.isArray(g))
    return [
      'guardrails must be {input?: [...], output?: [...]}, not a list: say whether each checks what the agent receives (input) or its answer (output)',
    ];
  if (typeof g !== 'object' || g === null)
    return [`guardrails must be {input?: [...], output?: [...]}, got ${given(g)}`];
  const problems = Object.keys(g)
    .filter((k) => k !== 'input' && k !== 'output')
    .map((k) => `guardrails has unknown field "${k}" (valid: input, output)`);
  for (const stage of ['input', 'output'] as const) {
    const list = g[stage];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.some((x) => x?.kind !== 'guardrail')) {
      problems.push(
        `guardrails.${stage} must be a list of guardrails made with guardrails.maxLength(), .pattern(), .pii(), .jsonSchema() or .custom()`,
      );
      continue;
    }
    const names = list.map((x) => x.spec.name);
    const twice = names.filter((n, i) => names.indexOf(n) !== i);
    if (twice.length > 0)
      problems.push(
        `guardrails.${stage} has two guardrails named ${[...new Set(twice)].map((n) => `"${n}"`).join(', ')}; give them distinct names`,
      );
  }
  return problems;
}

/** A custom guardrail's answer as a verdict. */
export function verdictOf(answer: GuardrailAnswer): GuardrailVerdict {
  if (answer === undefined || answer === null || answer === false) return { tripped: false };
  if (answer === true) return { tripped: true };
  if (typeof answer === 'string') return answer.trim() === '' ? { tripped: false } : { tripped: true, reason: answer };
  return { tripped: answer.tripped === true, ...(answer.reason ? { reason: String(answer.reason) } : {}) };
}

/** An agent's guardrails as the team snapshot records them. */
export function guardrailsSpec(g: AgentGuardrails | undefined): Pick<AgentSpec, 'guardrails'> {
  if (!g || (!g.input?.length && !g.output?.length)) return {};
  return {
    guardrails: {
      ...(g.input?.length ? { input: g.input.map((x) => x.spec) } : {}),
      ...(g.output?.length ? { output: g.output.map((x) => x.spec) } : {}),
    },
  };
}
