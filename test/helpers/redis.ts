/**
 * The Redis server the stream tests start (Debian's `redis-server`): found where a machine keeps
 * one, else installed as CI installs it, saying what it does; and one started per test file, on a
 * port of its own, with nothing saved to disk: plain, or TLS only with a self-signed certificate
 * made for it, with the ACL users a test names.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/devserver/server';
import { aptInstallSteps, has, isExecutable } from './system';

/** Where redis-server was looked for, in order, for messages. */
export const SEARCHED_REDIS = 'BATON_REDIS_SERVER, PATH (redis-server), /usr/bin/redis-server';

/** A redis-server executable: `BATON_REDIS_SERVER`, then PATH, then the system's; `undefined` when there is none. */
export function findRedisServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.BATON_REDIS_SERVER;
  if (given) return isExecutable(given) ? given : undefined;
  const onPath = (env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, 'redis-server'));
  return [...onPath, '/usr/bin/redis-server'].find(isExecutable);
}

/** Install Debian's redis-server with apt-get (through sudo when not root); resolves to the executable or throws saying what failed. */
export function installRedisServer(say: (line: string) => void): string {
  if (process.platform !== 'linux' || !has('apt-get'))
    throw new Error(
      `no redis-server found (looked at ${SEARCHED_REDIS}) and no apt-get to install one: install Redis, or set BATON_REDIS_SERVER to its redis-server`,
    );
  const steps = aptInstallSteps('redis-server');
  if (!steps)
    throw new Error(
      `no redis-server found (looked at ${SEARCHED_REDIS}), and installing one needs root or sudo: install Redis, or set BATON_REDIS_SERVER`,
    );
  for (const [command, ...args] of steps) {
    say(`stream tests: ${[command, ...args].join(' ')}`);
    const done = spawnSync(command!, args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (done.status !== 0)
      throw new Error(
        `\`${[command, ...args].join(' ')}\` failed (${done.error?.message ?? `exit ${done.status}`}): install Redis yourself, or set BATON_REDIS_SERVER`,
      );
  }
  const found = findRedisServer();
  if (!found) throw new Error(`installed redis-server, yet none is at ${SEARCHED_REDIS}: set BATON_REDIS_SERVER to it`);
  return found;
}

/** How a test's Redis server is set up. */
export interface RedisServerOptions {
  /** Serve TLS only (`rediss://`), with a self-signed certificate made for it. */
  tls?: boolean;
  /** ACL users, as `user` lines of redis.conf (e.g. `baton on >secret ~baton:stream:* +xadd`); `default off` shuts the password-less user out. */
  users?: string[];
}

/** A test's Redis server: its URL (credentials left to the test), the CA that signed its certificate, and how to stop it or start it again on its port. */
export interface RedisServer {
  url: string;
  port: number;
  /** The self-signed certificate (PEM) of a TLS server, its own CA; its file for NODE_EXTRA_CA_CERTS. */
  ca?: Buffer;
  caFile?: string;
  stop(): Promise<void>;
  /** Start it again, on the same port and with the same setup (nothing kept: it saves nothing). */
  restart(): Promise<void>;
}

/** A Redis server of the test file's own, on a free port; `stop()` ends it. */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const binary = process.env.BATON_REDIS_SERVER ?? findRedisServer();
  if (!binary) throw new Error(process.env.BATON_REDIS_PROBLEM ?? `no redis-server (looked at ${SEARCHED_REDIS})`);
  const port = await freePort();
  const dir = scratchDir();
  const args = [
    path.join(dir, 'redis.conf'),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--protected-mode',
    'yes',
    '--dir',
    dir,
  ];
  fs.writeFileSync(args[0]!, (options.users ?? []).map((u) => `user ${u}\n`).join(''));
  let ca: Buffer | undefined;
  if (options.tls) {
    const { cert, key } = makeCertificate(dir);
    ca = fs.readFileSync(cert);
    args.push(
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--tls-cert-file',
      cert,
      '--tls-key-file',
      key,
      '--tls-ca-cert-file',
      cert,
      '--tls-auth-clients',
      'no',
    );
  } else args.push('--port', String(port));
  let child = await launch(binary, args, port, dir);
  return {
    url: `${options.tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`,
    port,
    ...(ca ? { ca, caFile: path.join(dir, 'cert.pem') } : {}),
    stop: () => child.stop(),
    restart: async () => {
      await child.stop();
      child = await launch(binary, args, port, dir);
    },
  };
}

/** A Redis Cluster of `masters` nodes (no replicas) on free ports, made with `redis-cli --cluster create`. */
export async function startRedisCluster(
  masters = 3,
): Promise<{ urls: string[]; ports: number[]; stop: () => Promise<void> }> {
  const binary = process.env.BATON_REDIS_SERVER ?? findRedisServer();
  if (!binary) throw new Error(process.env.BATON_REDIS_PROBLEM ?? `no redis-server (looked at ${SEARCHED_REDIS})`);
  const cli = path.join(path.dirname(binary), 'redis-cli');
  const nodes: { stop: () => Promise<void> }[] = [];
  const ports: number[] = [];
  try {
    for (let i = 0; i < masters; i++) {
      const port = await freePort();
      const dir = scratchDir();
      const conf = path.join(dir, 'redis.conf');
      fs.writeFileSync(conf, '');
      ports.push(port);
      nodes.push(
        await launch(
          binary,
          [
            conf,
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--save',
            '',
            '--appendonly',
            'no',
            '--dir',
            dir,
            '--cluster-enabled',
            'yes',
            // Its bus port, port + 10000 unless given, is chosen as the port is: below the ephemeral range.
            '--cluster-port',
            String(await freePort()),
            '--cluster-config-file',
            path.join(dir, 'nodes.conf'),
          ],
          port,
          dir,
        ),
      );
    }
    const made = spawnSync(
      isExecutable(cli) ? cli : 'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
      { encoding: 'utf8' },
    );
    if (made.status !== 0)
      throw new Error(`redis-cli --cluster create failed: ${made.stderr || made.stdout || made.error?.message}`);
    // Every node agrees on the slots before the cluster takes commands.
    for (const deadline = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 100))) {
      const states = ports.map(
        (p) =>
          spawnSync(isExecutable(cli) ? cli : 'redis-cli', ['-p', String(p), 'cluster', 'info'], { encoding: 'utf8' })
            .stdout,
      );
      if (states.every((s) => s.includes('cluster_state:ok'))) break;
      if (Date.now() > deadline) throw new Error('the Redis cluster did not become ready');
    }
  } catch (err) {
    await Promise.all(nodes.map((n) => n.stop()));
    throw err;
  }
  return {
    urls: ports.map((p) => `redis://127.0.0.1:${p}`),
    ports,
    stop: async () => void (await Promise.all(nodes.map((n) => n.stop()))),
  };
}

/** The folders of the servers this process started, removed by {@link removeRedisScratch}. */
const scratch = new Set<string>();
let removedAtExit = false;

/** Remove the servers' folders: when each test file ends (test/helpers/setup.ts), and when the process exits. */
export function removeRedisScratch(): void {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
  scratch.clear();
}

/** A folder for a server's files, kept until its test file ends (a stopped server may start again from it). */
function scratchDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-redis-'));
  if (!removedAtExit) process.once('exit', removeRedisScratch);
  removedAtExit = true;
  scratch.add(dir);
  return dir;
}

async function launch(
  binary: string,
  args: string[],
  port: number,
  dir: string,
): Promise<{ stop: () => Promise<void> }> {
  const log = path.join(dir, 'redis.log');
  const child = spawn(binary, [...args, '--logfile', log], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (const deadline = Date.now() + 10_000; ;) {
    if (await accepts(port)) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      const said = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').slice(-3).join(' / ') : '';
      throw new Error(
        `redis-server did not start on port ${port}${said ? `: ${said}` : ''}${args.includes('--tls-port') ? " (a redis-server built without TLS refuses --tls-port: use Debian's, which has it)" : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl (Debian's, installed when missing). */
function makeCertificate(dir: string): { cert: string; key: string } {
  if (!has('openssl')) {
    const steps = aptInstallSteps('openssl');
    if (!steps)
      throw new Error(
        'the TLS stream tests make a certificate with openssl, and there is none and no apt-get to install it: install openssl',
      );
    for (const [command, ...rest] of steps)
      spawnSync(command!, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  }
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl could not make a certificate: ${made.stderr || made.error?.message}`);
  return { cert, key };
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
