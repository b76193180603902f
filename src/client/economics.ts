/**
 * What chains share, from a client: the shared circuit breakers (list, reset) and the spend
 * ledgers (list) running in the namespace, found by workflow type in visibility.
 */
import { type Client, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { UserError } from '../common/errors';
import {
  BREAKER_MEMO,
  breakerQuery,
  type BreakerView,
  EconomicsWorkflow,
  ledgerQuery,
  type LedgerView,
  resetBreakerUpdate,
} from '../common/economics/messages';
import { breakerId } from '../common/economics/spec';
import { whileWorkflowTaskFails } from './taskFailing';

/** A shared breaker as a list shows it: its state, and its workflow id. */
export type SharedBreakerState = BreakerView & { workflowId: string };

/** Options of {@link BatonEconomics.breakers} and {@link BatonEconomics.spendLedgers}. */
export interface ListEconomicsOptions {
  /** At most this many. @default 200 */
  limit?: number;
}

/** The breakers and ledgers chains share (`baton.economics`). */
export class BatonEconomics {
  constructor(private readonly client: Client) {}

  /** The shared circuit breakers running, as their last state change recorded them (their memo). */
  async breakers(options: ListEconomicsOptions = {}): Promise<SharedBreakerState[]> {
    const found: SharedBreakerState[] = [];
    const limit = options.limit ?? 200;
    for await (const wf of this.client.workflow.list({
      query: `WorkflowType = '${EconomicsWorkflow.CIRCUIT_BREAKER}' AND ExecutionStatus = 'Running'`,
    })) {
      const view = wf.memo?.[BREAKER_MEMO] as BreakerView | undefined;
      if (view?.target) found.push({ ...view, workflowId: wf.workflowId });
      if (found.length >= limit) break;
    }
    return found.sort((a, b) => `${a.scope}/${a.target}`.localeCompare(`${b.scope}/${b.target}`));
  }

  /** The shared breaker of `target` in `scope`, as it stands now (a query); `undefined` when none is running. */
  async breaker(scope: string, target: string): Promise<SharedBreakerState | undefined> {
    const workflowId = breakerId(scope, target);
    try {
      return { ...(await this.client.workflow.getHandle(workflowId).query(breakerQuery)), workflowId };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
  }

  /**
   * Close the shared breaker of `target` in `scope` on an operator's word; the reset is recorded in
   * the breaker with `by` and `reason`. A breaker that is not running cannot be reset (there is nothing open).
   */
  async resetBreaker(
    scope: string,
    target: string,
    options: { by: string; reason?: string },
  ): Promise<SharedBreakerState> {
    if (typeof options?.by !== 'string' || options.by.trim() === '')
      throw new UserError('a reset needs "by": who resets the breaker');
    const workflowId = breakerId(scope, target);
    const handle = this.client.workflow.getHandle(workflowId);
    try {
      const running = (await handle.describe()).status.name === 'RUNNING';
      if (!running) throw new WorkflowNotFoundError('not running', workflowId, undefined);
      return {
        ...(await whileWorkflowTaskFails(() =>
          handle.executeUpdate(resetBreakerUpdate, {
            args: [{ by: options.by, ...(options.reason ? { reason: options.reason } : {}) }],
          }),
        )),
        workflowId,
      };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError)
        throw new UserError(
          `no shared breaker for "${target}" in scope "${scope}" is running (baton breakers lists them)`,
        );
      // The breaker's validator refused the reset: its message names the problem.
      if (err instanceof WorkflowUpdateFailedError) throw new UserError(err.cause?.message ?? err.message);
      throw err;
    }
  }

  /** The spend ledgers running (windows open or just closed), each as it stands now. */
  async spendLedgers(options: ListEconomicsOptions = {}): Promise<(LedgerView & { workflowId: string })[]> {
    const ids: string[] = [];
    const limit = options.limit ?? 200;
    for await (const wf of this.client.workflow.list({
      query: `WorkflowType = '${EconomicsWorkflow.SPEND_LEDGER}' AND ExecutionStatus = 'Running'`,
    })) {
      ids.push(wf.workflowId);
      if (ids.length >= limit) break;
    }
    const views = await Promise.all(
      ids.map((id) =>
        this.client.workflow
          .getHandle(id)
          .query(ledgerQuery)
          .then(
            (v) => ({ ...v, workflowId: id }),
            () => undefined,
          ),
      ),
    );
    return views.filter((v): v is LedgerView & { workflowId: string } => v !== undefined);
  }
}
