/**
 * The `evalRun` workflow: an eval of a candidate team against its cases. Each case is an
 * `evalCase` child (at most `concurrency` at once), so a case that is done stays done when the
 * eval's worker stops and starts again; the progress query tells a follower what is done, and the
 * result is the report: every case (regressions first) and the summary with its threshold.
 */
import { ApplicationFailure } from '@temporalio/common';
import { condition, executeChild, setHandler, workflowInfo } from '@temporalio/workflow';
import { caseWorkflowId, EvalWorkflowType, evalProgressQuery, MAX_EVAL_CASES } from '../../src/common/eval/messages';
import { orderCases, summarizeEval } from '../../src/common/eval/summary';
import {
  EVAL_SCHEMA,
  type EvalCaseInput,
  type EvalCaseReport,
  type EvalReport,
  type EvalRunInput,
  type EvalSummary,
} from '../../src/common/eval/types';

type EvalCaseWorkflow = (input: EvalCaseInput) => Promise<EvalCaseReport>;

/** An eval run: every case, then the summary. */
export async function evalRun(input: EvalRunInput): Promise<EvalReport> {
  const evalId = workflowInfo().workflowId;
  const startedAt = Date.now();
  const reports: EvalCaseReport[] = [];
  let running = 0;
  const finished: { summary?: EvalSummary } = {};
  setHandler(evalProgressQuery, (after) => {
    const from = typeof after === 'number' && Number.isInteger(after) && after >= 0 ? after : 0;
    return {
      total: input?.cases?.length ?? 0,
      done: reports.length,
      running,
      reports: reports.slice(from),
      ...(finished.summary ? { summary: finished.summary } : {}),
    };
  });
  const problem = inputProblem(input);
  if (problem) throw ApplicationFailure.nonRetryable(`Invalid eval: ${problem}`, 'InvalidEvalInputError');
  const { cases, options, team } = input;
  let next = 0;
  const launch = () => {
    while (running < options.concurrency && next < cases.length) {
      const index = ++next;
      running++;
      const caseInput: EvalCaseInput = { evalId, index, case: cases[index - 1]!, team, options };
      void executeChild<EvalCaseWorkflow>(EvalWorkflowType.EVAL_CASE, {
        workflowId: caseWorkflowId(evalId, index),
        args: [caseInput],
      })
        .catch((err: unknown) => failedCase(caseInput, err))
        .then((report) => {
          reports.push(report);
          running--;
          launch();
        });
    }
  };
  launch();
  await condition(() => reports.length === cases.length);
  const summary = summarizeEval(evalId, team, reports, options.threshold, Date.now() - startedAt);
  finished.summary = summary;
  return { schema: EVAL_SCHEMA, summary, cases: orderCases(reports) };
}

/** What is wrong with an eval's input, for any client that starts one. */
function inputProblem(input: EvalRunInput | undefined): string | undefined {
  if (
    !input ||
    !Array.isArray(input.cases) ||
    typeof input.options !== 'object' ||
    input.options === null ||
    typeof input.team?.id !== 'string'
  )
    return 'expected {team: {id, hash}, cases: [...], options: {...}}';
  if (input.cases.length === 0) return 'no cases to run';
  if (input.cases.length > MAX_EVAL_CASES)
    return `${input.cases.length} cases; an eval takes at most ${MAX_EVAL_CASES} (split it)`;
  const bad = input.cases.findIndex(
    (x) =>
      typeof x?.id !== 'string' ||
      x.id.length === 0 ||
      x.id.length > 1000 ||
      !['chain', 'history', 'dataset'].includes(x.source?.kind),
  );
  if (bad >= 0)
    return `cases[${bad}] must be {id: 1 to 1000 characters, source: {kind: "chain" | "history" | "dataset", …}}`;
  const c = input.options.concurrency;
  if (!Number.isInteger(c) || c < 1 || c > 100)
    return `options.concurrency must be a whole number from 1 to 100, got ${JSON.stringify(c)}`;
  return undefined;
}

/** A case whose workflow failed (a defect, or it was terminated): reported as a regression saying so. */
function failedCase(input: EvalCaseInput, err: unknown): EvalCaseReport {
  const error = `the case did not finish: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`;
  return {
    index: input.index,
    id: input.case.id,
    source: input.case.source,
    request: { agent: input.case.start?.agent ?? '', input: (input.case.start?.input ?? '').slice(0, 200) },
    candidate: {
      route: [],
      outcome: { status: 'failed', message: error },
      usage: { modelCalls: 0, inputTokens: 0, outputTokens: 0 },
      reused: 0,
      tools: { recorded: 0, live: 0, notRun: 0 },
      approvals: { recorded: 0, defaulted: 0 },
    },
    routeAgrees: false,
    outcomeAgrees: false,
    expectations: [{ name: 'case', ok: false, detail: error }],
    passed: false,
    verdict: 'regression',
    error,
  };
}
