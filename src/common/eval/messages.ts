/**
 * The names an eval run depends on: its workflow types, its progress query, its activities and how
 * its workflows name each other. Workflows, the eval worker, the client and the tests import these.
 *
 * Workflow-safe: no I/O.
 */
import { defineQuery } from '@temporalio/workflow';
import type { EvalProgress } from './types';

/** Workflow types of an eval. */
export const EvalWorkflowType = {
  /** An eval: its cases, a few at once, and their summary. */
  EVAL_RUN: 'evalRun',
  /** One case: the candidate chain, its approvals, its score. */
  EVAL_CASE: 'evalCase',
} as const;

/** Activity type names of an eval's workflows (served by the eval worker). */
export const EvalActivityType = {
  PREPARE_CASE: 'prepareCase',
  DECIDE_APPROVALS: 'decideApprovals',
  SCORE_CASE: 'scoreCase',
  JUDGE_CASE: 'judgeCase',
} as const;

/** Query: how far an eval run is, with the reports of the cases done from `after` (0-based) on. */
export const evalProgressQuery = defineQuery<EvalProgress, [number?]>('evalProgress');

/** The workflow id of case `index` (1-based) of eval `evalId`. */
export function caseWorkflowId(evalId: string, index: number): string {
  return `${evalId}/case-${index}`;
}

/** The workflow id of a case's candidate chain; its specialists' ids start with it. */
export function candidateWorkflowId(caseId: string): string {
  return `${caseId}/chain`;
}

/** The case workflow a candidate chain (or one of its specialists) belongs to, from its workflow id. */
export function caseOfChain(workflowId: string): string | undefined {
  const m = /^(.+\/case-\d+)\/chain(?:\/.*)?$/.exec(workflowId);
  return m?.[1];
}

/** The task queue an eval's workflows and candidate chains run on. */
export function evalTaskQueue(evalId: string): string {
  return `baton-eval-${evalId}`;
}

/** Most cases one eval run takes (its report is one workflow result). */
export const MAX_EVAL_CASES = 500;
