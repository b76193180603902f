/**
 * The controls of a chain beyond its plain limits: budgets and their tiers, guardrails, circuit
 * breakers, loop detection and the approval of tool calls — their serializable specs, the events
 * they record and the counters a result carries. The checks that run in the workflow live here
 * too, as pure functions.
 *
 * Workflow-safe: no I/O.
 */
import type { TeamNeed } from './version';
import type { SpendRefusal } from './economics/spec';
import type { ApprovalPolicy } from './approvals';
import { type ArgCondition, conditionHolds } from './argConditions';
import { isRecord } from './check';
import { schemaProblems } from './jsonSchema';
import type { JsonSchema } from './model';
import type { Usage } from './usage';

export { ARG_OPS, type ArgCondition, argConditionProblems, conditionHolds } from './argConditions';
export type { ToolCallUnderApproval } from './approvals';

/** What a budget counts. */
export type BudgetName = 'handoffs' | 'turns' | 'tokens' | 'agents' | 'deadline' | 'cost';

/**
 * A budget that was used up: its limit and what was used (milliseconds for `deadline`, micros of
 * `currency` for `cost`, where `needed` is the worst case of the call refused).
 */
export type BudgetExceeded = {
  budget: BudgetName;
  limit: number;
  used: number;
  /** `cost`: the prices' currency. */
  currency?: string;
  /** `cost`: what the call refused could cost at worst (micros); absent when the budget was found spent after a call. */
  needed?: number;
  /** `cost`: the conversation's budget ran out, not the chain's own. */
  scope?: 'conversation';
  /** The agent working when it ran out. */
  agent: string;
};

/**
 * The budget tiers of the v4.1 protocol, as presets of `maxHandoffs`, `maxTokens` and `maxAgents`
 * (each option given beside a tier wins over it).
 */
export const BUDGET_TIERS = {
  /** One agent, no handoffs, 10,000 tokens. */
  simple: { maxHandoffs: 0, maxTokens: 10_000, maxAgents: 1 },
  /** Up to 2 handoffs among 3 agents, 25,000 tokens. */
  medium: { maxHandoffs: 2, maxTokens: 25_000, maxAgents: 3 },
  /** Up to 5 handoffs among 5 agents, 150,000 tokens. */
  complex: { maxHandoffs: 5, maxTokens: 150_000, maxAgents: 5 },
} as const;
/** A budget tier's name: `simple`, `medium` or `complex`. */
export type BudgetTier = keyof typeof BUDGET_TIERS;

/** What a tripped guardrail does: fail the run with `GuardrailTrippedError`, or tell the agent why and let it try again (bounded by `maxGuardrailRetries`). */
export type GuardrailTripPolicy = 'fail' | 'feedback';

/** Kinds of personal data the `pii` guardrail looks for. */
export type PiiKind = 'email' | 'phone' | 'ssn' | 'credit_card' | 'iban';
/** Every kind of personal data the `pii` guardrail knows, which it looks for when given none. */
export const PII_KINDS: readonly PiiKind[] = ['email', 'phone', 'ssn', 'credit_card', 'iban'];

/** A guardrail as the team snapshot records it; built-ins run in the workflow, `custom` ones as the `checkGuardrail` activity. */
export type GuardrailSpec = { name: string; onTrip?: GuardrailTripPolicy } & (
  | { kind: 'maxLength'; max: number }
  /** Trips when the text matches `pattern` (a RegExp source with `flags`). */
  | { kind: 'pattern'; pattern: string; flags?: string; message?: string }
  | { kind: 'pii'; types: PiiKind[] }
  /** The text must be JSON matching `schema`. */
  | { kind: 'jsonSchema'; schema: JsonSchema }
  | { kind: 'custom' }
);

/** An agent's own guardrails: on what it receives (the run's input, a handoff's message) and on its final answer. Never inherited by the agents it hands off to. */
export interface GuardrailsSpec {
  input?: GuardrailSpec[];
  output?: GuardrailSpec[];
}

/** What a guardrail found. */
export interface GuardrailVerdict {
  tripped: boolean;
  /** Why it tripped, in words the agent can act on. */
  reason?: string;
}

/** Input of the `checkGuardrail` activity: a custom guardrail of `agentId` on `text`. */
export interface CheckGuardrailInput {
  agentId: string;
  guardrail: string;
  stage: 'input' | 'output';
  text: string;
  context?: Record<string, unknown>;
  /** What of the run's team this call needs from the worker that runs it; a worker that lacks it refuses the call (`TeamMismatchError`). */
  team?: TeamNeed;
}

const PII_PATTERNS: Record<PiiKind, RegExp> = {
  email: /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/,
  phone: /(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{3}[\s.-]\d{3,4}[\s.-]?\d{0,4}\b/,
  ssn: /\b\d{3}-\d{2}-\d{4}\b/,
  credit_card: /\b(?:\d[ -]?){13,19}\b/,
  iban: /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?\b/,
};

/** A built-in guardrail's verdict on `text`; `undefined` for a custom one (an activity decides). */
export function builtinVerdict(g: GuardrailSpec, text: string): GuardrailVerdict | undefined {
  switch (g.kind) {
    case 'maxLength':
      return text.length > g.max
        ? { tripped: true, reason: `${text.length} characters, more than the ${g.max} allowed` }
        : { tripped: false };
    case 'pattern': {
      const match = new RegExp(g.pattern, (g.flags ?? '').replace(/g/g, '')).exec(text);
      return match
        ? { tripped: true, reason: g.message ?? `it contains "${clip(match[0])}", which matches /${g.pattern}/` }
        : { tripped: false };
    }
    case 'pii': {
      const found = g.types.filter((kind) => piiFound(kind, text));
      return found.length > 0
        ? { tripped: true, reason: `it contains personal data (${found.join(', ').replace(/_/g, ' ')})` }
        : { tripped: false };
    }
    case 'jsonSchema': {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return { tripped: true, reason: 'it is not JSON' };
      }
      const problems = schemaProblems(g.schema, value);
      return problems.length > 0 ? { tripped: true, reason: problems.slice(0, 5).join('; ') } : { tripped: false };
    }
    case 'custom':
      return undefined;
  }
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function piiFound(kind: PiiKind, text: string): boolean {
  const re = new RegExp(PII_PATTERNS[kind].source, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (kind !== 'credit_card' || luhn(m[0].replace(/\D/g, ''))) return true;
  }
  return false;
}

/** The Luhn checksum card numbers carry, so order numbers and timestamps do not count as cards. */
function luhn(digits: string): boolean {
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** When a tool's calls need a person's approval: every call, or those whose arguments meet every condition of `when`. */
export interface ToolApprovalSpec extends ApprovalPolicy {
  when?: ArgCondition[];
}

/**
 * Whether a call with `argumentsText` needs approval under `spec`. Arguments that are not a JSON
 * object cannot be weighed, so they need it too.
 */
export function approvalNeeded(spec: ToolApprovalSpec, argumentsText: string): boolean {
  if (spec.required === false) return false;
  if (!spec.when || spec.when.length === 0) return true;
  let args: unknown;
  try {
    args = JSON.parse(argumentsText || '{}');
  } catch {
    return true;
  }
  if (!isRecord(args)) return true;
  return spec.when.every((c) => conditionHolds(c, args));
}

/** Something a control did, recorded in history (as a memo event) and counted in the result. */
export type ControlEvent =
  | {
      kind: 'loop_detected';
      from: string;
      to: string;
      cycle: string[];
      pattern: 'repeat' | 'oscillation';
      refused: boolean;
    }
  | { kind: 'target_failed'; agent: string; reason: string }
  | { kind: 'breaker_opened'; agent: string; failures: number; until: string }
  | { kind: 'breaker_half_open'; agent: string }
  | { kind: 'breaker_closed'; agent: string }
  | { kind: 'breaker_refused'; agent: string; from: string; until: string }
  | {
      kind: 'guardrail_tripped';
      agent: string;
      guardrail: string;
      stage: 'input' | 'output';
      reason: string;
      onTrip: GuardrailTripPolicy;
    }
  | ({ kind: 'budget_exceeded'; onBudgetExceeded: 'fail' | 'final_answer' } & BudgetExceeded)
  /** A shared circuit breaker (one per target across the chains of `scope`) refused a handoff or delegation to `agent`. */
  | { kind: 'shared_breaker_refused'; agent: string; from: string; scope: string; until?: string; failures: number }
  /** A shared breaker's cooldown had passed: this chain makes the one trial of `agent` across the scope. */
  | { kind: 'shared_breaker_trial'; agent: string; scope: string }
  /** A spend limit shared across runs refused a model call: the chain fails (`refuse`), or waits for the next window until `until` (`wait`). */
  | ({ kind: 'spend_refused'; onExceeded: 'refuse' | 'wait'; until?: string } & SpendRefusal);

/** How many times each control acted in a chain, by {@link ControlEvent} kind. */
export type ControlCounters = Partial<
  Record<
    | ControlEvent['kind']
    | 'tool_approvals_requested'
    | 'tool_calls_approved'
    | 'tool_calls_rejected'
    | 'tool_approvals_timed_out'
    | 'decisions_refused',
    number
  >
>;

/** A target's circuit breaker. */
export interface Breaker {
  state: 'closed' | 'open' | 'half_open';
  /** Failures since the last success. */
  failures: number;
  /** When it opened, workflow time (ms). */
  openedAt?: number;
}

/** What the controls keep in the chain state (chains started with the `baton-controls` patch). */
export interface ControlState {
  counters: ControlCounters;
  breakers: Record<string, Breaker>;
  /** Workflow time the chain started (ms), for `deadline`. */
  startedAt: number;
  /** Tools run and delegations answered before each handoff, for telling an oscillation without progress. */
  progressAtHandoff: number[];
  progress: number;
  /** Loops refused so far (`onLoop: 'refuse'`). */
  loopRefusals: number;
  /** Set once a budget ran out under `onBudgetExceeded: 'final_answer'`: the agent answers without tools. */
  finalTurn?: BudgetExceeded;
  /** Usage per agent, specialists' included. */
  usageByAgent: Record<string, Usage>;
  /** Guardrail trips told to the agent as feedback, by `agent/stage/guardrail`. */
  guardrailFeedback?: Record<string, number>;
}
