/**
 * An S3-compatible server for the archive's tests: moto's server (PyPI `moto`, with Flask), from
 * the machine's python3 when it has it, else installed from PyPI into a folder of the project's own
 * (node_modules/.cache/baton-moto; about 100 MB, a minute or two the first time), saying so — with
 * pip's own wheel, fetched from the same index, when python3 has no pip; and one started per test
 * file on a port of its own, with a bucket that has object lock enabled. Only when the index cannot
 * be reached at all are the S3 cases skipped, saying why; any other failure fails them.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../../src/devserver/server';

const CACHE = path.resolve(__dirname, '../../node_modules/.cache');
const TARGET = path.join(CACHE, 'baton-moto');
const PACKAGES = ['moto[s3]', 'flask', 'flask-cors'];
const PROBE = 'import moto.server, flask, flask_cors, xmltodict';

/** How to run moto's server (the environment python3 needs), or why the S3 cases cannot run here. */
export type MotoProvision = { env: Record<string, string> } | { skip: string };

/** Find or install moto: see the module's comment. */
export async function provideMoto(say: (line: string) => void = (line) => console.log(line)): Promise<MotoProvision> {
  const has = (env: Record<string, string>) =>
    spawnSync('python3', ['-c', PROBE], { env: { ...process.env, ...env }, stdio: 'ignore' }).status === 0;
  if (spawnSync('python3', ['--version'], { stdio: 'ignore' }).status !== 0)
    throw new Error('the S3 archive tests run moto, a Python package: install python3');
  if (process.env.BATON_MOTO_INSTALL !== 'always' && has({})) return { env: {} };
  const env = { PYTHONPATH: TARGET };
  if (process.env.BATON_MOTO_INSTALL !== 'always' && fs.existsSync(TARGET) && has(env)) return { env };
  const index = (process.env.PIP_INDEX_URL ?? 'https://pypi.org/simple').replace(/\/+$/, '');
  const reached = await fetch(`${index}/moto/`, { signal: AbortSignal.timeout(20_000) }).then(
    () => undefined,
    (err: Error) => `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}`,
  );
  if (reached !== undefined)
    return { skip: `moto is not installed and pip cannot reach the package index ${index}: ${reached}` };
  const pip = await findPip(index, say);
  say(
    `archive tests: installing ${PACKAGES.join(' ')} from ${index} into ${TARGET} for an S3-compatible server (once; a minute or two)`,
  );
  const install = spawnSync(
    'python3',
    [...pip, 'install', '--quiet', '--disable-pip-version-check', '--upgrade', '--target', TARGET, ...PACKAGES],
    { encoding: 'utf8' },
  );
  if (install.status === 0 && has(env)) return { env };
  throw new Error(
    `pip install ${PACKAGES.join(' ')} failed (${(install.stderr || install.error?.message || `exit ${install.status}`).trim().split('\n').pop()}): install them yourself (python3 -m pip install 'moto[server]')`,
  );
}

/** python3's arguments that run pip: its own, or pip's wheel from `index` (a wheel of pip runs itself). */
async function findPip(index: string, say: (line: string) => void): Promise<string[]> {
  if (spawnSync('python3', ['-m', 'pip', '--version'], { stdio: 'ignore' }).status === 0) return ['-m', 'pip'];
  const page = await fetch(`${index}/pip/`, {
    headers: { accept: 'application/vnd.pypi.simple.v1+json' },
    signal: AbortSignal.timeout(30_000),
  });
  if (!page.ok) throw new Error(`python3 has no pip, and ${index}/pip/ answered ${page.status}`);
  const files =
    (
      (await page.json()) as {
        files?: { filename: string; url: string; 'requires-python'?: string; yanked?: unknown }[];
      }
    ).files ?? [];
  const wheel = files.filter((f) => /^pip-[\d.]+-py3-none-any\.whl$/.test(f.filename) && !f.yanked).pop();
  if (!wheel) throw new Error(`python3 has no pip, and ${index}/pip/ lists no wheel of it`);
  const file = path.join(CACHE, wheel.filename);
  if (!fs.existsSync(file)) {
    say(`archive tests: python3 has no pip; fetching ${wheel.filename} from ${index}`);
    const body = await fetch(new URL(wheel.url, `${index}/pip/`), { signal: AbortSignal.timeout(120_000) });
    if (!body.ok) throw new Error(`fetching ${wheel.url} answered ${body.status}`);
    fs.mkdirSync(CACHE, { recursive: true });
    fs.writeFileSync(file, Buffer.from(await body.arrayBuffer()));
  }
  return [path.join(file, 'pip')];
}

/** A moto server of the test file's own; `stop()` ends it. */
export async function startMoto(env: Record<string, string>): Promise<{ endpoint: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (const deadline = Date.now() + 30_000; ;) {
    if (await accepts(port)) break;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`moto's server did not start on port ${port}: ${stderr}`);
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
