/**
 * Evaluation: run a team against recorded chains or a dataset, datasets, the eval worker, reports,
 * experiments and their statistics — `import { runEval, experimentStats } from 'baton-agents/eval'`.
 * @packageDocumentation
 * @module baton-agents/eval
 */
export { runEval, resolveEvalOptions, InvalidEvalInputError, type EvalOptions } from './run';
export { evalCases, DEFAULT_QUERY_LIMIT, type CaseSelection } from './cases';
export { createEvalWorker, type EvalWorkerOptions } from './worker';
export { appendToDataset, DatasetError, lineFromChain, readDataset, type DatasetLine } from './dataset';
export { formatCaseLine, formatEvalReport } from './format';
export { DEFAULT_THRESHOLD, parseThreshold, withThreshold } from '../common/eval/summary';
export {
  caseWorkflowId,
  candidateWorkflowId,
  EvalWorkflowType,
  evalProgressQuery,
  evalTaskQueue,
  MAX_EVAL_CASES,
} from '../common/eval/messages';
export {
  type CaseSource,
  type CaseStart,
  type Expectations,
  type EvalCaseSpec,
  ToolMode,
  type ResolvedEvalOptions,
  type ThresholdRule,
  type ThresholdMetric,
  type EvalRunInput,
  type EvalCaseInput,
  type ChainOutcome,
  type Spend,
  type ChainSummary,
  type FirstDifference,
  type ExpectationResult,
  type CaseVerdict,
  type EvalCaseReport,
  type Ratio,
  type EvalSummary,
  type EvalReport,
  EVAL_SCHEMA,
  type EvalProgress,
} from '../common/eval/types';
export { Experiments, ExperimentError, experimentWorkflowId, type VariantStart } from '../client/experiments';
export { experimentStats, type Comparison, type ExperimentStats, type VariantStats } from './stats/experiment';
export {
  agentEdgeStats,
  type AgentEdgeStats,
  type AgentStats,
  type AgentStatsOptions,
  type EdgeStats,
} from './stats/agents';
export { formatAgentEdgeStats, formatExperimentStats } from './stats/format';
export { ALPHA, fisherExact, MIN_SAMPLE, type TestResult } from './stats/significance';
export { mannWhitneyU } from './stats/rankTest';
