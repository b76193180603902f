/**
 * Real MCP server processes for the MCP tests: the support example's order server over HTTP, and
 * the flaky fixture over stdio.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { mcpServer, type McpServer } from '../../src/mcp/server';

const ORDER_SERVER = path.resolve(__dirname, '../../examples/mcp/orders.ts');
const FLAKY_SERVER = path.resolve(__dirname, 'fixtures/flaky.ts');

/** Node arguments that run a TypeScript file. */
export function tsx(file: string): string[] {
  return ['--require', require.resolve('tsx/cjs'), file];
}

/** The order server over streamable HTTP, as a process of its own. */
export interface HttpOrderServer {
  url: string;
  port: number;
  child: ChildProcess;
  /** SIGKILL it and wait until it is gone. */
  kill(): Promise<void>;
}

/** Start the order server with `--http` on `port` (0: a free one) and wait until it listens. */
export async function startHttpOrderServer(port = 0, env: Record<string, string> = {}): Promise<HttpOrderServer> {
  const child = spawn(process.execPath, [...tsx(ORDER_SERVER), '--http', String(port)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /(http:\/\/\S+\/mcp)/.exec(out);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`the order server exited before it listened (${code ?? signal})`)),
    );
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    port: Number(new URL(url).port),
    child,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The flaky fixture as an agent's stdio server, with the files that steer it. */
export function flakyServer(
  dir: string,
  name = 'flaky',
  startMs = 0,
): { server: McpServer; pidFile: string; downFile: string } {
  const pidFile = path.join(dir, `${name}.pid`);
  const downFile = path.join(dir, `${name}.down`);
  const server = mcpServer({
    name,
    command: process.execPath,
    args: tsx(FLAKY_SERVER),
    env: { FLAKY_PID_FILE: pidFile, FLAKY_DOWN_FILE: downFile, FLAKY_START_MS: String(startMs) },
  });
  return { server, pidFile, downFile };
}

/** SIGKILL the process whose pid is in `pidFile`, and wait until it is gone. */
export async function killFromPidFile(pidFile: string): Promise<number> {
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  process.kill(pid, 'SIGKILL');
  const deadline = Date.now() + 10_000;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not die`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return pid;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
