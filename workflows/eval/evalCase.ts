/**
 * The `evalCase` workflow: one case of an eval. It reads the case's request, runs the candidate
 * team's chain on it (a child `handoffRun`, its approvals decided as recorded beside it), scores
 * it against the record, asks the judge when the case has a rubric, and reports.
 */
import { ChildWorkflowFailure } from '@temporalio/common';
import { executeChild, ParentClosePolicy, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { WorkflowType } from '../../src/common/messages';
import { workflowTaskTimeoutOption } from '../../src/common/taskTimeout';
import type { HandoffRunInput, HandoffRunResult } from '../../src/common/run';
import type { EvalActivities } from '../../src/common/eval/activities';
import { candidateWorkflowId } from '../../src/common/eval/messages';
import { allHold, verdictOf } from '../../src/common/eval/summary';
import type { EvalCaseInput, EvalCaseReport, ExpectationResult } from '../../src/common/eval/types';

type HandoffRunWorkflow = (input: HandoffRunInput) => Promise<HandoffRunResult<unknown>>;

const { prepareCase, scoreCase, judgeCase } = proxyActivities<EvalActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 5 },
});
// Beside the chain for as long as it runs; a worker that dies is noticed by its heartbeats.
const { decideApprovals } = proxyActivities<EvalActivities>({
  startToCloseTimeout: '7 days',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 20 },
});

/** One case: the candidate chain, its approvals, its score and verdict. */
export async function evalCase(input: EvalCaseInput): Promise<EvalCaseReport> {
  const caseId = workflowInfo().workflowId;
  const prepared = await prepareCase(input);
  if ('error' in prepared) return unreadable(input, prepared.error);
  const chainId = candidateWorkflowId(caseId);
  const approvals = decideApprovals({ caseId, chainId });
  try {
    await executeChild<HandoffRunWorkflow>(WorkflowType.HANDOFF_RUN, {
      workflowId: chainId,
      args: [prepared.start],
      parentClosePolicy: ParentClosePolicy.TERMINATE,
      ...workflowTaskTimeoutOption,
    });
  } catch (err) {
    // A chain that failed is an outcome to score, not the case's failure.
    if (!(err instanceof ChildWorkflowFailure)) throw err;
  }
  const { scored, answer } = await scoreCase({ caseId, chainId, approvals: await approvals });
  const expectations: ExpectationResult[] = [...scored.expectations];
  let judged: EvalCaseReport['judge'];
  const rubric = input.case.expect?.judge?.rubric ?? input.options.judge?.rubric;
  if (rubric !== undefined) {
    const judgeModel = input.options.judge?.model;
    const pass = input.case.expect?.judge?.pass ?? input.options.judge?.pass ?? 0.5;
    if (!judgeModel)
      expectations.push({
        name: 'judge',
        ok: false,
        detail: 'the case has a rubric but the eval has no judge model (baton eval --judge <provider>:<model>)',
      });
    else if (scored.candidate.outcome.status !== 'completed')
      expectations.push({ name: 'judge', ok: false, detail: 'no answer to judge: the chain did not complete' });
    else {
      const v = await judgeCase({
        model: judgeModel,
        rubric,
        request: scored.request.input,
        answer,
        ...(scored.recorded?.output !== undefined ? { reference: scored.recorded.output } : {}),
      });
      judged = { score: v.score, reason: v.reason };
      expectations.push({
        name: 'judge',
        ok: v.score >= pass,
        detail: `${v.score.toFixed(2)} (passes at ${pass}): ${v.reason}`,
      });
    }
  }
  const passed = allHold(expectations);
  return {
    ...scored,
    expectations,
    passed,
    verdict: verdictOf(passed, scored.recordedPassed),
    ...(judged ? { judge: judged } : {}),
  };
}

/** A case whose source could not be read: it fails, and says why. */
function unreadable(input: EvalCaseInput, error: string): EvalCaseReport {
  const empty = {
    route: [],
    outcome: { status: 'failed' as const, message: error },
    usage: { modelCalls: 0, inputTokens: 0, outputTokens: 0 },
  };
  return {
    index: input.index,
    id: input.case.id,
    source: input.case.source,
    request: { agent: input.case.start?.agent ?? '', input: (input.case.start?.input ?? '').slice(0, 200) },
    candidate: {
      ...empty,
      reused: 0,
      tools: { recorded: 0, live: 0, notRun: 0 },
      approvals: { recorded: 0, defaulted: 0 },
    },
    routeAgrees: false,
    outcomeAgrees: false,
    expectations: [{ name: 'source', ok: false, detail: error }],
    passed: false,
    verdict: 'regression',
    error,
  };
}
