/** A service's own workflows, which a worker runs beside baton's through `BatonPlugin`. */
import { executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { HandoffRunInput, HandoffRunResult } from '../../src/workflow';

const { lookupOrder } = proxyActivities<{ lookupOrder(orderId: string): Promise<string> }>({
  startToCloseTimeout: '10 seconds',
});

/** Looks an order up with the service's own activity, then has baton's agents answer the customer (a chain as a child workflow). */
export async function orderStatus(orderId: string): Promise<string> {
  const status = await lookupOrder(orderId);
  const input: HandoffRunInput = { agent: 'triage', input: `Order ${orderId} is ${status}; tell the customer.` };
  const answer = await executeChild<(input: HandoffRunInput) => Promise<HandoffRunResult>>('handoffRun', {
    args: [input],
    workflowId: `${workflowInfo().workflowId}/answer`,
  });
  return `${status}: ${answer.output}`;
}
