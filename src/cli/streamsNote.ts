import { STREAMS_ENV } from '../streams/env';

/**
 * Why model text does not show as it forms when the worker is another process and no broker is
 * shared, and how to have it, as one line for stderr; `undefined` when `BATON_STREAMS_URL` names
 * one (then the text comes through it, or a note says the broker is down).
 */
export function unstreamedNote(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env[STREAMS_ENV]?.trim()) return undefined;
  return (
    `baton: text does not stream: the worker is another process and no broker is shared, so each answer shows when its call ends; ` +
    `give the worker and this command ${STREAMS_ENV}=redis://host:6379 (docs/streaming.md), or serve the team here with --team`
  );
}
