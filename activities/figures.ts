import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { SUCCESS_WINDOW_MS, type SpecialistFigures, type SpecialistFiguresInput } from '../src/common/routing';

/**
 * What a routing strategy picks a specialist by, from visibility: chains running with each
 * candidate working in them now, and (for `success_rate`) chains that ended with it working in the
 * last hour, completed or not.
 */
export async function specialistFigures(
  client: Client | undefined,
  input: SpecialistFiguresInput,
): Promise<SpecialistFigures> {
  if (!client)
    throw ApplicationFailure.nonRetryable('this worker has no client to read visibility with', 'FiguresUnavailable');
  const count = async (query: string) => (await client.workflow.count(query)).count;
  const agent = (id: string) => `WorkflowType = "handoffRun" AND BatonAgent = "${id.replace(/["\\]/g, '')}"`;
  const since = new Date(Date.now() - SUCCESS_WINDOW_MS).toISOString();
  const inFlight: Record<string, number> = {};
  const recent: Record<string, { completed: number; failed: number }> = {};
  await Promise.all(
    input.candidates.map(async (id) => {
      inFlight[id] = await count(`${agent(id)} AND ExecutionStatus = "Running"`);
      if (!input.recent) return;
      const [completed, ended] = await Promise.all([
        count(`${agent(id)} AND ExecutionStatus = "Completed" AND CloseTime > "${since}"`),
        count(
          `${agent(id)} AND ExecutionStatus != "Running" AND ExecutionStatus != "ContinuedAsNew" AND CloseTime > "${since}"`,
        ),
      ]);
      recent[id] = { completed, failed: Math.max(0, ended - completed) };
    }),
  );
  return { inFlight, ...(input.recent ? { recent } : {}), readAt: new Date().toISOString() };
}
