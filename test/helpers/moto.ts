/**
 * An S3-compatible server for the archive's tests: moto's server (PyPI `moto`, with Flask), from
 * the machine's python3 when it has it, else installed from PyPI into a folder of the project's own
 * (node_modules/.cache/baton-moto; about 100 MB, a minute or two the first time), saying so; and
 * one started per test file on a port of its own, with a bucket that has object lock enabled.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../../src/devserver/server';

const TARGET = path.resolve(__dirname, '../../node_modules/.cache/baton-moto');
const PACKAGES = ['moto[s3]', 'flask', 'flask-cors'];
const PROBE = 'import moto.server, flask, flask_cors, xmltodict';

/** How to run moto's server: the environment python3 needs. */
export function provideMoto(say: (line: string) => void = (line) => console.log(line)): Record<string, string> {
  const has = (env: Record<string, string>) => spawnSync('python3', ['-c', PROBE], { env: { ...process.env, ...env }, stdio: 'ignore' }).status === 0;
  if (spawnSync('python3', ['--version'], { stdio: 'ignore' }).status !== 0) throw new Error('the S3 archive tests run moto, a Python package: install python3 (with pip)');
  if (process.env.BATON_MOTO_INSTALL !== 'always' && has({})) return {};
  const env = { PYTHONPATH: TARGET };
  if (fs.existsSync(TARGET) && has(env)) return env;
  say(`archive tests: installing ${PACKAGES.join(' ')} from PyPI into ${TARGET} for an S3-compatible server (once; a minute or two)`);
  const install = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--upgrade', '--target', TARGET, ...PACKAGES], { encoding: 'utf8' });
  if (install.status === 0 && has(env)) return env;
  throw new Error(`pip install ${PACKAGES.join(' ')} failed (${(install.stderr || install.error?.message || `exit ${install.status}`).trim().split('\n').pop()}): install them yourself (python3 -m pip install 'moto[server]')`);
}

/** A moto server of the test file's own; `stop()` ends it. */
export async function startMoto(env: Record<string, string>): Promise<{ endpoint: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (const deadline = Date.now() + 30_000; ; ) {
    if (await accepts(port)) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`moto's server did not start on port ${port}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
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
