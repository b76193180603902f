/**
 * When a long-running workflow of the shared economics hands over to its next run: its history is
 * long (or Temporal suggests it), or, under Worker Deployments, the deployment's current version
 * changed. A ledger or breaker is pinned to the version that started it, like any of baton's
 * workflows; it moves onto the current one by continuing as new with `AUTO_UPGRADE`, as a
 * conversation does between turns, so a version that drains is not held open by it.
 */
import { makeContinueAsNewFunc, workflowInfo, type Workflow } from '@temporalio/workflow';

/** Whether the run should hand over now, having taken `taken` messages of at most `perRun`. */
export function handOverDue(taken: number, perRun: number): boolean {
  const info = workflowInfo();
  return taken >= perRun || info.continueAsNewSuggested || info.targetWorkerDeploymentVersionChanged;
}

/** Continue as new, onto the deployment's current version when it changed. */
export function handOver<F extends Workflow>(workflowType: string, ...args: Parameters<F>): Promise<never> {
  const moves = workflowInfo().targetWorkerDeploymentVersionChanged;
  return makeContinueAsNewFunc<F>({
    workflowType,
    ...(moves ? { initialVersioningBehavior: 'AUTO_UPGRADE' as const } : {}),
  })(...args);
}
