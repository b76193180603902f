/**
 * What a command opened, closed when it ends: `main` runs each command in a scope of its own, and
 * the connections `connect()` makes during it are closed once it has answered. A process that
 * runs the CLI's `main` more than once (a command session, a service that embeds it) does not
 * keep a connection per command.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Something a command opened, to close at its end. */
export interface Closable {
  close(): Promise<void>;
}

const scope = new AsyncLocalStorage<Set<Closable>>();

/** Close `c` when the command running now ends (nothing when no command runs). */
export function closeWithCommand(c: Closable): void {
  scope.getStore()?.add(c);
}

/** Run `command`, then close what it opened ({@link closeWithCommand}), its failures ignored. */
export async function inCommandScope<T>(command: () => Promise<T>): Promise<T> {
  const opened = new Set<Closable>();
  try {
    return await scope.run(opened, command);
  } finally {
    await Promise.all([...opened].map((c) => c.close().catch(() => undefined)));
  }
}
