/**
 * A Python with the `cryptography` package for the tests that sign from Python: the machine's
 * python3 when it has the package, else python3 with the package installed from PyPI into a
 * folder of its own (node_modules/.cache/baton-python). Answers why not when neither works.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** How to run Python with `cryptography`, or why it cannot be had here. */
export type PythonWithCryptography =
  { ok: true; command: string; env: Record<string, string> } | { ok: false; why: string };

const TARGET = path.resolve(__dirname, '../../node_modules/.cache/baton-python');

export function pythonWithCryptography(): PythonWithCryptography {
  const has = (env: Record<string, string>) =>
    spawnSync('python3', ['-c', 'import cryptography'], { env: { ...process.env, ...env }, stdio: 'ignore' }).status ===
    0;
  if (spawnSync('python3', ['--version'], { stdio: 'ignore' }).status !== 0)
    return { ok: false, why: 'python3 is not installed on this machine' };
  if (has({})) return { ok: true, command: 'python3', env: {} };
  const env = { PYTHONPATH: TARGET };
  if (fs.existsSync(TARGET) && has(env)) return { ok: true, command: 'python3', env };
  const install = spawnSync(
    'python3',
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', TARGET, 'cryptography'],
    { encoding: 'utf8' },
  );
  if (install.status === 0 && has(env)) return { ok: true, command: 'python3', env };
  return {
    ok: false,
    why: `pip install cryptography failed (${(install.stderr || install.error?.message || `exit ${install.status}`).trim().split('\n').pop()})`,
  };
}
