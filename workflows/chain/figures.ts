/**
 * The figures routing strategies pick a specialist by, read by the `specialistFigures` activity
 * (chains in flight and recent outcomes from visibility) and so recorded in history: a replay
 * reads the same figures and picks the same specialist.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { BatonActivities } from '../../activities';
import { NON_RETRYABLE_ERROR_TYPES } from '../../src/common/errorTypes';
import type { ChainEffects } from './effects';

/** `effects` that can read routing figures. */
export function withSpecialistFigures(effects: ChainEffects): ChainEffects {
  const { specialistFigures } = proxyActivities<BatonActivities>({
    startToCloseTimeout: '30 seconds',
    retry: {
      maximumAttempts: 3,
      initialInterval: '200 milliseconds',
      nonRetryableErrorTypes: [...NON_RETRYABLE_ERROR_TYPES],
    },
    summary: 'routing figures',
  });
  return Object.assign(Object.create(effects) as ChainEffects, {
    specialistFigures: (input: Parameters<typeof specialistFigures>[0]) => specialistFigures(input),
  } satisfies Partial<ChainEffects>);
}
