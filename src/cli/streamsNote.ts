import { STREAMS_ENV } from '../streams/env';

/**
 * Why model text does not show as it forms when the worker is another process and no broker is
 * shared, and how to have it; `undefined` when `BATON_STREAMS_URL` names one (then the text comes
 * through it, or a note says the broker is down).
 */
export function unstreamedNote(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env[STREAMS_ENV]?.trim()) return undefined;
  return (
    `  (each answer shows when its model call ends: text streams as it forms through a broker the worker and this command share, ` +
    `and none is set. Give both ${STREAMS_ENV}=redis://host:6379, or serve the team in this process with --team.)`
  );
}
