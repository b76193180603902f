/**
 * `baton` commands that only talk to the server (`pending`, `approve`, `reject`, `audit`, …), run
 * one after another in one process of the test file's own: the command's modules load once
 * instead of once a command (seconds of CPU each, through tsx), and each command still runs as
 * bin/baton.js runs it (`main` of the sources loaded through tsx, the environment it is given,
 * its stdout, its stderr, its exit code). What is about the process itself (a terminal, signals,
 * stdin, output flushed into a pipe at exit, the exit status bin/baton.js sets) runs as a process
 * of its own (cli.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { HostReply, HostRequest } from './cliHost';
import { root } from './cli';
import { TYPESCRIPT } from './typescript';

/**
 * The commands a session runs: those that only ask the server or read and write files. A command
 * that runs a worker (`run --team`, `worker`, `replay`, `demo`, …) installs Temporal's runtime
 * once per process, one that loads a team module would find it loaded already, and one that reads
 * stdin or a terminal is about its process: those run as processes (cli.ts).
 */
const SESSION_COMMANDS = new Set(['pending', 'approve', 'reject', 'audit', 'keygen', 'inbox', 'ask', 'answer']);

/** Whether `baton <args>` can run in a session ({@link CliSession.cli}) rather than as a process of its own. */
export function runsInSession(args: string[]): boolean {
  return SESSION_COMMANDS.has(args[0]!) && !args.includes('-');
}

/** `baton` commands run in one process (a test file gets one with cliSession.ts's `useCliSession`). */
export class CliSession {
  private child?: ChildProcess;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (reply: HostReply) => void; reject: (err: Error) => void }>();
  /** The end of what the process wrote outside the commands (tsx's warnings, a crash), for the error when it exits. */
  private log = '';

  /** Run `baton <args>` with `env` over the test's environment (as cli.ts's `cli`); resolves to its exit code and output. */
  async cli(
    args: string[],
    env: Record<string, string | undefined> = {},
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    if (!runsInSession(args))
      throw new Error(`baton ${args[0]} runs as a process of its own (cli.ts), not in a session`);
    return this.send(args, env);
  }

  /**
   * Run `baton <args>`, any command, when it is refused at its arguments or asked for its help: it
   * reads them (and the team module it names, if any) and stops before it connects or runs a
   * worker. A command that gets further does so in the session's process, as a test that expects
   * exit code 2 finds out. Input on stdin (`-`) runs as a process of its own.
   */
  async usage(
    args: string[],
    env: Record<string, string | undefined> = {},
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    if (args.includes('-')) throw new Error('a command that reads stdin runs as a process of its own (cli.ts)');
    return this.send(args, env);
  }

  private async send(
    args: string[],
    env: Record<string, string | undefined>,
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    const full = Object.fromEntries(
      Object.entries({ ...process.env, OPENAI_API_KEY: '', ...env }).filter(
        (e): e is [string, string] => e[1] !== undefined,
      ),
    );
    const request: HostRequest = { id: this.next++, argv: args, env: full };
    const reply = await new Promise<HostReply>((resolve, reject) => {
      this.waiting.set(request.id, { resolve, reject });
      this.host().send(request);
    });
    return { code: reply.code, stdout: reply.stdout, stderr: reply.stderr };
  }

  /** Stop the session's process. */
  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  private host(): ChildProcess {
    if (this.child) return this.child;
    // As bin/baton.js loads the command in this checkout: tsx, with the checkout's tsconfig.json (its
    // paths name baton-agents). Its stdout and stderr are pipes, as they are for cli.ts's processes.
    const child = spawn(process.execPath, [...TYPESCRIPT, path.join(__dirname, 'cliHost.ts')], {
      cwd: root,
      env: { ...process.env, TSX_TSCONFIG_PATH: path.join(root, 'tsconfig.json') },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    for (const stream of [child.stdout!, child.stderr!])
      stream.on('data', (chunk: Buffer) => (this.log = (this.log + chunk.toString()).slice(-4000)));
    child.on('message', (reply: HostReply) => {
      this.waiting.get(reply.id)?.resolve(reply);
      this.waiting.delete(reply.id);
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      for (const { reject } of this.waiting.values())
        reject(
          new Error(`the baton command's session process exited (${signal ?? code}) before it answered:\n${this.log}`),
        );
      this.waiting.clear();
    });
    this.child = child;
    return child;
  }
}
