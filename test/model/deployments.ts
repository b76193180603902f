/** The workers a lane of the model's system is served by, and the Worker Deployment version its server routes to. */
import type { Client } from '@temporalio/client';
import type { ServedWorker } from './protocol';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What serves `taskQueue` as `version`: a Worker Deployment version when `deployment` names one; through the AI SDK adapter when `aiSdk`. */
export function served(
  taskQueue: string,
  version: 'v1' | 'v2',
  deployment: string | undefined,
  aiSdk: boolean,
): ServedWorker {
  return {
    taskQueue,
    version,
    ...(deployment ? { deployment: { name: deployment, buildId: version } } : {}),
    ...(aiSdk ? { aiSdk } : {}),
  };
}

/** Route `deploymentName`'s new work to `buildId`, once its workers have been seen polling (tried for some 20 s). */
export async function setCurrentVersion(client: Client, deploymentName: string, buildId: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: 'default',
        deploymentName,
        buildId,
        identity: 'model harness',
      });
      return;
    } catch (err) {
      if (attempt >= 100) throw err;
      await sleep(200);
    }
  }
}
