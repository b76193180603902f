/**
 * Evaluation as data: what an eval run is given (`evalRun`'s input: the candidate team's version,
 * the cases, the options) and what it reports, per case and in sum. Plain JSON, recorded in
 * history; workflow-safe (no I/O).
 */
import type { JsonSchema, ModelSpec } from '../model';
import type { RunOptions } from '../options';
import type { RunContext } from '../team';

/** Where a case comes from: a recorded chain on the server, an exported history, or a dataset line. */
export type CaseSource =
  | { kind: 'chain'; workflowId: string }
  | { kind: 'history'; file: string }
  | {
      kind: 'dataset';
      file: string;
      /** 1-based line of the dataset file. */
      line: number;
      /** The chain the line was saved from: its recorded answers are reused while it is on the server. */
      chainId?: string;
    };

/** What a case's candidate chain is started with, when the source does not record it (a dataset line). */
export interface CaseStart {
  agent: string;
  input: string;
  options?: RunOptions;
  context?: RunContext;
}

/**
 * What a case expects of its answer. Every expectation given must hold for the case to pass; a
 * case with none passes when its chain completes.
 */
export interface Expectations {
  /** The agents the chain goes through, in order, the first one included (`["triage", "refunds"]`). */
  route?: string[];
  /** The agent that answers. */
  finalAgent?: string;
  /** `completed` (the default) or `failed`: a case may expect a chain to fail (a request that must be refused). */
  outcome?: 'completed' | 'failed';
  /** The answer: a regular expression it matches, a JSON Schema its value matches, a zod schema in a module (`./schemas.ts#Refund`). */
  output?: { regex?: string; flags?: string; jsonSchema?: JsonSchema; zod?: string };
  /** A chain to avoid (a recorded chain a person marked bad): the case passes when the candidate's route or answer differs from it. */
  avoid?: { route?: string[]; output?: string };
  /** An LLM judge's score of the answer against `rubric`, from 0 to 1; the case passes at `pass` or more. */
  judge?: { rubric: string; pass?: number };
}

/** One case of an eval. */
export interface EvalCaseSpec {
  /** What the case is called in the report: the recorded chain's workflow id, or the dataset line's id. */
  id: string;
  source: CaseSource;
  /** The request, for a dataset line (a recorded chain's comes from its history). */
  start?: CaseStart;
  expect?: Expectations;
}

/** How tools answer a candidate chain. */
export const ToolMode = {
  /** A call the recorded chain made (same agent, tool and arguments) gets the recorded result; any other is not run, and the model is told so. */
  RECORDED: 'recorded',
  /** Every call runs for real. */
  LIVE: 'live',
} as const;
export type ToolMode = (typeof ToolMode)[keyof typeof ToolMode];

/** Options of an eval run, resolved (see `EvalOptions` for what a caller gives). */
export interface ResolvedEvalOptions {
  /** Cases running at once. */
  concurrency: number;
  tools: ToolMode;
  /** Tools that run for real when the recorded chain did not make the same call (`tools: 'recorded'`). */
  liveTools: string[];
  /** An approval the recorded chain has no decision for: approved or rejected. */
  approvals: 'approve' | 'reject';
  /** The judge of expectations with a rubric. */
  judge?: { model: ModelSpec; rubric?: string; pass: number };
  /** Run options every candidate chain starts with, over the recorded ones. */
  runOptions?: RunOptions;
  /** When the eval fails: each rule must hold. */
  threshold: ThresholdRule[];
}

/** A rule of the eval's threshold, e.g. `regressions <= 0` or `route >= 0.9`. */
export interface ThresholdRule {
  metric: ThresholdMetric;
  op: '<=' | '>=';
  value: number;
}

/** What a threshold rule measures: `regressions` (a count), or an agreement or pass ratio from 0 to 1. */
export type ThresholdMetric = 'regressions' | 'route' | 'outcome' | 'pass';

/** Input of the `evalRun` workflow. */
export interface EvalRunInput {
  /** The candidate team's version: the eval's cases run on workers that have it. */
  team: { id: string; hash: string };
  cases: EvalCaseSpec[];
  options: ResolvedEvalOptions;
}

/** Input of the `evalCase` workflow: one case of an eval run. */
export interface EvalCaseInput {
  /** The eval run's workflow id. */
  evalId: string;
  /** 1-based position of the case in the eval. */
  index: number;
  case: EvalCaseSpec;
  team: { id: string; hash: string };
  options: ResolvedEvalOptions;
}

/** How a chain ended. */
export interface ChainOutcome {
  status: 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed_out' | 'running';
  /** The typed error of a failed chain (`HandoffTargetNotFoundError`). */
  error?: string;
  message?: string;
}

/** Tokens, and cost when the model's usage reports it. */
export interface Spend {
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** In the provider's currency, when every call's usage carried a cost. */
  cost?: number;
}

/** A chain as a case report shows it. */
export interface ChainSummary {
  workflowId?: string;
  team?: string;
  /** The agents it went through, the first one included. */
  route: string[];
  outcome: ChainOutcome;
  finalAgent?: string;
  /** Its answer, clipped. */
  output?: string;
  /** Tokens (and cost) its model calls used. */
  usage: Spend;
  durationMs?: number;
}

/** The first model call of the candidate whose input no recorded call had, and what of the input differs. */
export interface FirstDifference {
  /** 1-based position among the candidate's model calls (its specialists' after its own). */
  step: number;
  agent: string;
  /** The chain it was made in (the candidate or one of its specialists). */
  chain: string;
  /** What differs from the recorded call of the same agent at the same point (`instructions`, `tools: handoff (description)`, `message 3 (tool orders__lookupOrder)`, …). */
  why: string[];
}

/** How one expectation went. */
export interface ExpectationResult {
  name: string;
  ok: boolean;
  detail: string;
}

/** How a case went compared to its record: `regression` and `improvement` are changes of pass to fail and back. */
export type CaseVerdict = 'pass' | 'fail' | 'regression' | 'improvement';

/** One case of an eval, as reported. */
export interface EvalCaseReport {
  index: number;
  id: string;
  source: CaseSource;
  /** The request's agent and its input, clipped. */
  request: { agent: string; input: string };
  recorded?: ChainSummary;
  candidate: ChainSummary & {
    /** Model answers reused from the record: no model was called for them. */
    reused: number;
    /** Tool calls answered with the recorded result, run for real, and not run. */
    tools: { recorded: number; live: number; notRun: number };
    /** Approvals decided for the candidate: as the record decided them, and by the eval's default. */
    approvals: { recorded: number; defaulted: number };
  };
  firstDifference?: FirstDifference;
  routeAgrees: boolean;
  outcomeAgrees: boolean;
  expectations: ExpectationResult[];
  /** Whether the record met the same expectations (absent without a record). */
  recordedPassed?: boolean;
  passed: boolean;
  verdict: CaseVerdict;
  judge?: { score: number; reason: string };
  /** Set when the case could not run at all (its source could not be read). */
  error?: string;
}

/** A count out of a total. */
export interface Ratio {
  count: number;
  total: number;
  /** `count / total`, 1 when the total is 0. */
  ratio: number;
}

/** What an eval run reports in sum. */
export interface EvalSummary {
  evalId: string;
  team: { id: string; hash: string };
  cases: number;
  routeAgreement: Ratio;
  outcomeAgreement: Ratio;
  passed: Ratio;
  /** Case ids, in case order. */
  regressions: string[];
  improvements: string[];
  /** Model calls made and answers reused, over every case. */
  modelCalls: number;
  reused: number;
  /** What the candidates' real model calls used, and what the recorded chains had used. */
  spent: Spend;
  recordedUsage: Spend;
  durationMs: number;
  threshold: { rules: ThresholdRule[]; breached: string[] };
}

/** What the `evalRun` workflow returns. */
export interface EvalReport {
  schema: typeof EVAL_SCHEMA;
  summary: EvalSummary;
  /** Regressions first, then failures, then the rest, each group in case order. */
  cases: EvalCaseReport[];
}

/** Version tag of the eval report JSON. */
export const EVAL_SCHEMA = 'baton.eval/v1';

/** How far an eval run is: its cases, and the reports of those done. */
export interface EvalProgress {
  total: number;
  done: number;
  running: number;
  /** The reports of the cases done from `after` on (the query's argument), in the order they finished. */
  reports: EvalCaseReport[];
  /** Set once the run has its summary. */
  summary?: EvalSummary;
}
