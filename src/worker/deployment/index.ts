/**
 * Worker Deployments: a worker that names its deployment and build id is one version of that
 * deployment. Temporal sends a chain's workflow tasks and activities to workers of the version it
 * started on (chains are pinned), so old workers drain their chains while new chains start on the
 * version set current (`temporal worker deployment set-current-version`). See docs/operating.md.
 */
import type { NativeConnection, WorkerDeploymentOptions } from '@temporalio/worker';
import { UserError } from '../../common/errors';
import { APPROVAL_SEARCH_ATTRIBUTES, BatonTeam } from '../../common/messages';

/** The Worker Deployment version a worker belongs to. */
export interface WorkerDeployment {
  /** The deployment's name, the same for every version of it, e.g. `support`. */
  name: string;
  /** This version's build id, e.g. a release or a commit: `2026-11-24`, `4f1c2e9`. */
  buildId: string;
}

/** The environment variables `createWorker` and `baton worker` read a deployment from. */
export const DEPLOYMENT_ENV = { name: 'BATON_DEPLOYMENT', buildId: 'BATON_BUILD_ID' } as const;

/** The deployment the environment names: both variables set, or neither. */
export function deploymentFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerDeployment | undefined {
  const name = env[DEPLOYMENT_ENV.name];
  const buildId = env[DEPLOYMENT_ENV.buildId];
  if (!name && !buildId) return undefined;
  if (!name || !buildId) {
    const missing = name ? DEPLOYMENT_ENV.buildId : DEPLOYMENT_ENV.name;
    throw new UserError(
      `${missing} is not set: a worker deployment needs both ${DEPLOYMENT_ENV.name} and ${DEPLOYMENT_ENV.buildId} (or neither, for a worker outside any deployment)`,
    );
  }
  return { name, buildId };
}

/** Problems with a deployment's name and build id. */
export function deploymentProblems(d: WorkerDeployment): string[] {
  const problems: string[] = [];
  const check = (field: 'name' | 'buildId', value: unknown, dots: boolean) => {
    if (typeof value !== 'string' || value.trim() === '' || value.length > 255)
      problems.push(
        `deployment.${field} must be a non-empty string of at most 255 characters, got ${JSON.stringify(value)}`,
      );
    else if (!dots && value.includes('.'))
      problems.push(
        `deployment.${field} must not contain "." (Temporal writes a version as <name>.<buildId>), got ${JSON.stringify(value)}`,
      );
  };
  check('name', d?.name, false);
  check('buildId', d?.buildId, true);
  return problems;
}

/**
 * Temporal's options for a worker of `deployment`: versioned, and every workflow pinned to the
 * version it started on by default. A conversation moves on between turns (see `conversation`).
 */
export function workerDeploymentOptions(deployment: WorkerDeployment): WorkerDeploymentOptions {
  const problems = deploymentProblems(deployment);
  if (problems.length > 0) throw new UserError(`Invalid worker deployment: ${problems.join('; ')}`);
  return {
    useWorkerVersioning: true,
    version: { deploymentName: deployment.name, buildId: deployment.buildId },
    defaultVersioningBehavior: 'PINNED',
  };
}

/**
 * Whether the namespace has the `BatonTeam` search attribute, asked once when a worker starts: the
 * chains a worker snapshots write it only then, so a namespace without it never fails a chain. A
 * worker that cannot ask (no rights to list search attributes) treats it as missing.
 */
export async function hasTeamAttribute(connection: NativeConnection, namespace: string): Promise<boolean> {
  return (await optionalAttributes(connection, namespace)).team;
}

/**
 * Which of baton's optional search attributes the namespace has, asked once when a worker starts:
 * `BatonTeam`, and the approval attributes (all four, or none counts). A worker that cannot ask
 * treats them as missing, so a namespace without them never fails a chain.
 */
export async function optionalAttributes(
  connection: NativeConnection,
  namespace: string,
): Promise<{ team: boolean; approvals: boolean }> {
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    const known = Object.keys(customAttributes ?? {});
    return {
      team: known.includes(BatonTeam.name),
      approvals: APPROVAL_SEARCH_ATTRIBUTES.every((k) => known.includes(k.name)),
    };
  } catch {
    return { team: false, approvals: false };
  }
}
