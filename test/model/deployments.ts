/** The workers a lane of the model's system is served by. */
import type { ServedWorker } from './protocol';

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
