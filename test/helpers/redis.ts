/**
 * The Redis server the stream tests start (Debian's `redis-server`): found where a machine keeps
 * one, else installed as CI installs it, saying what it does; and one started per test file, on a
 * port of its own, with nothing saved to disk.
 */
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../../src/devserver/server';
import { aptInstallSteps, has, isExecutable } from './system';

/** Where redis-server was looked for, in order, for messages. */
export const SEARCHED_REDIS = 'BATON_REDIS_SERVER, PATH (redis-server), /usr/bin/redis-server';

/** A redis-server executable: `BATON_REDIS_SERVER`, then PATH, then the system's; `undefined` when there is none. */
export function findRedisServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.BATON_REDIS_SERVER;
  if (given) return isExecutable(given) ? given : undefined;
  const onPath = (env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, 'redis-server'));
  return [...onPath, '/usr/bin/redis-server'].find(isExecutable);
}

/** Install Debian's redis-server with apt-get (through sudo when not root); resolves to the executable or throws saying what failed. */
export function installRedisServer(say: (line: string) => void): string {
  if (process.platform !== 'linux' || !has('apt-get')) throw new Error(`no redis-server found (looked at ${SEARCHED_REDIS}) and no apt-get to install one: install Redis, or set BATON_REDIS_SERVER to its redis-server`);
  const steps = aptInstallSteps('redis-server');
  if (!steps) throw new Error(`no redis-server found (looked at ${SEARCHED_REDIS}), and installing one needs root or sudo: install Redis, or set BATON_REDIS_SERVER`);
  for (const [command, ...args] of steps) {
    say(`stream tests: ${[command, ...args].join(' ')}`);
    const done = spawnSync(command!, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (done.status !== 0) throw new Error(`\`${[command, ...args].join(' ')}\` failed (${done.error?.message ?? `exit ${done.status}`}): install Redis yourself, or set BATON_REDIS_SERVER`);
  }
  const found = findRedisServer();
  if (!found) throw new Error(`installed redis-server, yet none is at ${SEARCHED_REDIS}: set BATON_REDIS_SERVER to it`);
  return found;
}

/** A Redis server of the test file's own, on a free port; `stop()` ends it. */
export async function startRedis(): Promise<{ url: string; stop: () => Promise<void> }> {
  const binary = process.env.BATON_REDIS_SERVER ?? findRedisServer();
  if (!binary) throw new Error(process.env.BATON_REDIS_PROBLEM ?? `no redis-server (looked at ${SEARCHED_REDIS})`);
  const port = await freePort();
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (const deadline = Date.now() + 10_000; ; ) {
    if (await accepts(port)) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
