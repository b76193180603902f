/**
 * The real `baton` command as the tests run it: a child process in the checkout, on a terminal of
 * its own when asked, its output as it arrives.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';

/** The checkout, where the command runs. */
export const root = path.resolve(__dirname, '../..');

type Stream = 'stdout' | 'stderr';

/** The real `baton` command as a child process, its output as it arrives. */
export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  output: Record<Stream, string>;
  /** Resolves with the exit code once the process has exited and its output is read. */
  exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` on `stream`, waiting for output as it comes. */
  until(stream: Stream, pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/** How {@link startCli} runs the command. */
export interface StartOptions {
  /** On a terminal of its own (script(1)); what it writes there comes out on stdout. Stdin stays open for answers. */
  terminal?: boolean;
}

/** Start the real `baton <args>` in the checkout, with `env` over the test's environment and `stdin` written to it. */
export function startCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  stdin?: string | Buffer,
  options: StartOptions = {},
): CliProcess {
  const argv = [process.execPath, path.join(root, 'bin/baton.js'), ...args];
  const [command, ...commandArgs] = options.terminal
    ? ['script', '-qfec', argv.map(shellQuote).join(' '), '/dev/null']
    : argv;
  const child = spawn(command!, commandArgs, { cwd: root, env: { ...process.env, OPENAI_API_KEY: '', ...env } });
  const output: Record<Stream, string> = { stdout: '', stderr: '' };
  const watchers = new Set<() => void>();
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream].setEncoding('utf8');
    child[stream].on('data', (chunk: string) => {
      output[stream] += chunk;
      for (const watch of watchers) watch();
    });
  }
  // A command that refuses its input stops reading stdin; the rest of what we write is not needed.
  child.stdin.on('error', () => undefined);
  if (!options.terminal) child.stdin.end(stdin);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const until = (stream: Stream, pattern: RegExp, timeoutMs = 30_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(() => {
        watchers.delete(check);
        reject(new Error(`no ${pattern} on ${stream} within ${timeoutMs} ms:\n${output[stream]}`));
      }, timeoutMs);
      const check = () => {
        const match = output[stream].match(pattern);
        if (!match) return;
        watchers.delete(check);
        clearTimeout(timer);
        resolve(match);
      };
      watchers.add(check);
      check();
    });
  return { child, output, exited, until };
}

function shellQuote(arg: string): string {
  return /^[\w./:=@-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}

/** Run the real `baton` command to its end; resolves to its exit code and output. */
export async function cli(args: string[], env: Record<string, string | undefined> = {}, stdin?: string | Buffer) {
  const p = startCli(args, env, stdin);
  const code = await p.exited;
  return { code, ...p.output };
}
