/**
 * What the CLI tests share: the real `baton` command (test/helpers/cli.ts), the teams they serve
 * with it, and files of their own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export { cli, type CliProcess, root, startCli } from '../helpers/cli';
/** The research example's team, served by the command itself. */
export const research = ['--team', 'examples/research/team.ts'];
/** A team whose model and tool calls take long enough to be seen working. */
export const slowTeam = 'test/cli/fixtures/slow-team.ts';

/** A file of `content` in a directory of its own. */
export function tempFile(name: string, content: string | Buffer): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-cli-')), name);
  fs.writeFileSync(file, content);
  return file;
}
