/** A workflow interceptor that stands for a defect in workflow code: scheduling any activity throws. */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity() {
        throw new TypeError('a defect in workflow code');
      },
    },
  ],
});
