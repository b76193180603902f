/**
 * A workflow interceptor that changes the workflow's commands (a timer before anything else): the
 * kind of change that breaks running chains. The determinism test bundles it to prove replay catches it.
 */
import { sleep, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        await sleep('1 second');
        return next(input);
      },
    },
  ],
});
