/**
 * A command session for a test file ({@link useCliSession}); the session itself is in
 * commandSession.ts, which the drill's harness (test/model/system.ts) loads outside vitest.
 */
import { afterAll } from 'vitest';
import { CliSession } from './commandSession';

export { CliSession, runsInSession } from './commandSession';

/** A {@link CliSession} for the test file, closed after its tests. */
export function useCliSession(): CliSession {
  const session = new CliSession();
  afterAll(() => session.close());
  return session;
}
