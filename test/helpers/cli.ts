import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/** The real `baton` command as a child process: its output as it comes, and its exit. */
export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  output: { stdout: string; stderr: string };
  /** The exit code, once the process has exited and its output is read. */
  exited: Promise<number | null>;
  /** The first match of `pattern` on `stream`, waiting for output as it comes. */
  until(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/** Start `baton <args>` in the checkout, with `env` over the test's environment. */
export function startBaton(args: string[], env: Record<string, string | undefined> = {}): CliProcess {
  const child = spawn(process.execPath, [path.join(root, 'bin/baton.js'), ...args], { cwd: root, env: { ...process.env, OPENAI_API_KEY: '', ...env } });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (c: string) => (output.stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (output.stderr += c));
  child.stdin.end();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const until = async (stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = output[stream].match(pattern);
      if (m) return m;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${pattern} on ${stream}:\n${output[stream]}\n(stderr: ${output.stderr})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { child, output, exited, until };
}

/** Run `baton <args>` to its end. */
export async function runBaton(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = startBaton(args, env);
  const code = await p.exited;
  return { code, ...p.output };
}
