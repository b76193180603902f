import { describe, expect, it } from 'vitest';
import { InvalidRunInputError } from '../../src';
import { UserError } from '../../src/workflow';
import { validateRunInput } from '../../src/common/input';
import { deploymentFromEnv, workerDeploymentOptions } from '../../src/worker/deployment';

describe('worker deployments', () => {
  it('pin chains to the version a worker names, from options or the environment', () => {
    expect(workerDeploymentOptions({ name: 'support', buildId: '2026-11-24.1' })).toEqual({
      useWorkerVersioning: true,
      version: { deploymentName: 'support', buildId: '2026-11-24.1' },
      defaultVersioningBehavior: 'PINNED',
    });
    expect(deploymentFromEnv({ BATON_DEPLOYMENT: 'support', BATON_BUILD_ID: 'v2' })).toEqual({
      name: 'support',
      buildId: 'v2',
    });
    expect(deploymentFromEnv({})).toBeUndefined();
  });

  it('refuse a half-named deployment and names Temporal cannot take, naming the problem', () => {
    expect(() => deploymentFromEnv({ BATON_DEPLOYMENT: 'support' })).toThrow(
      /BATON_BUILD_ID is not set: a worker deployment needs both BATON_DEPLOYMENT and BATON_BUILD_ID/,
    );
    expect(() => workerDeploymentOptions({ name: 'sup.port', buildId: '' })).toThrow(UserError);
    expect(() => workerDeploymentOptions({ name: 'sup.port', buildId: '' })).toThrow(
      /deployment.name must not contain "\." \(Temporal writes a version as <name>.<buildId>\), got "sup.port"; deployment.buildId must be a non-empty string/,
    );
  });

  it('take teamMismatchTimeout as a run option of a second or more', () => {
    expect(
      validateRunInput({ agent: 'a', input: 'hi', options: { teamMismatchTimeout: '30 seconds' } }).options,
    ).toEqual({ teamMismatchTimeout: '30 seconds' });
    expect(() => validateRunInput({ agent: 'a', input: 'hi', options: { teamMismatchTimeout: 10 } })).toThrow(
      InvalidRunInputError,
    );
    expect(() => validateRunInput({ agent: 'a', input: 'hi', options: { teamMismatchTimeout: 'soon' } })).toThrow(
      /"teamMismatchTimeout" must be a duration/,
    );
  });
});
