/**
 * How a test starts a TypeScript file of the checkout as a process of its own:
 * `spawn(process.execPath, [...TYPESCRIPT, file, ...args])`. The launcher (typescriptMain.cjs) registers
 * tsx in the process rather than with `-r tsx/cjs`, which Node passes on to worker threads:
 * Temporal's workflow thread, one for each worker the process creates, does not load the SDK
 * through tsx.
 */
import path from 'node:path';

/** The arguments to node before the TypeScript file. */
export const TYPESCRIPT: readonly string[] = [path.join(__dirname, 'typescriptMain.cjs')];

/** `node -e` code that first registers tsx in the process (see {@link TYPESCRIPT}): `['-e', typescriptCode(code)]`. */
export function typescriptCode(code: string): string {
  return `require('tsx/cjs');\n${code}`;
}
