/**
 * The eval worker's activities as the eval workflows call them (`proxyActivities<EvalActivities>`),
 * with what they take and answer. The worker's implementation is `createEvalActivities` in
 * `src/eval/activities.ts`; workflow code sees only this interface.
 */
import type { ModelSpec } from '../model';
import type { HandoffRunInput } from '../run';
import type { EvalCaseInput, EvalCaseReport } from './types';

/** What `prepareCase` answers: the candidate chain's start, or why the case cannot run. */
export type PreparedCase = { start: HandoffRunInput } | { error: string };

/** What deciding the candidate's approvals did (the `decideApprovals` activity's result). */
export interface ApprovalsDecided {
  recorded: number;
  defaulted: number;
}

/** A case's report before the judge: `verdict` and `passed` are settled once the judge (if any) has scored. */
export type ScoredCase = Omit<EvalCaseReport, 'verdict' | 'passed'>;

/** What the judge is given. */
export interface JudgeInput {
  model: ModelSpec;
  rubric: string;
  request: string;
  answer: string;
  /** The recorded answer, when the case has a record. */
  reference?: string;
}

/** The judge's score and why. */
export interface JudgeVerdict {
  score: number;
  reason: string;
  usage: { inputTokens: number; outputTokens: number };
}

/**
 * The eval worker's activities, for `proxyActivities` in the eval workflows. A type rather than an
 * interface, so it is a `Record` of activities as `createWorker({ activities })` takes them.
 */
export type EvalActivities = {
  /** The request a case's candidate chain starts with: the recorded chain's, or the dataset line's. */
  prepareCase(input: EvalCaseInput): Promise<PreparedCase>;
  /** Decide the candidate chain's approvals as its record did, until the chain ends. */
  decideApprovals(input: { caseId: string; chainId: string }): Promise<ApprovalsDecided>;
  /** The case's report: the candidate chain against its record and the case's expectations. */
  scoreCase(input: {
    caseId: string;
    chainId: string;
    approvals: ApprovalsDecided;
  }): Promise<{ scored: ScoredCase; answer: string }>;
  /** The LLM judge's score of a case's answer against its rubric. */
  judgeCase(input: JudgeInput): Promise<JudgeVerdict>;
};
