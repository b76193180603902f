/** Worker Deployment routing shared by the drills, the recorded histories and the model harness. */
import type { Client } from '@temporalio/client';

/**
 * Make `buildId` the current version of `deploymentName`, once its workers have registered it:
 * the server refuses a version none of its workers has polled yet, so this asks again every 200 ms,
 * `retries` times at most.
 */
export async function setCurrentVersion(
  client: Client,
  deploymentName: string,
  buildId: string,
  identity: string,
  retries = 50,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: client.options.namespace,
        deploymentName,
        buildId,
        identity,
      });
      return;
    } catch (err) {
      if (attempt >= retries) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
