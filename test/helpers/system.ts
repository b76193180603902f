/**
 * What the test helpers ask of the machine they set up servers on: executables, commands on PATH,
 * and the apt-get steps that install a Debian package, as `.ci/run` used to.
 */
import { execFileSync } from 'node:child_process';

export { isExecutable } from '../../src/devserver/binary';

/** Whether `command` is on PATH. */
export function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The commands that install Debian's `pkg` with apt-get (through sudo when not root); `undefined`
 * without apt-get, or without root or sudo.
 */
export function aptInstallSteps(pkg: string): string[][] | undefined {
  if (process.platform !== 'linux' || !has('apt-get')) return undefined;
  const root = process.getuid?.() === 0;
  if (!root && !has('sudo')) return undefined;
  const sudo = root ? [] : ['sudo'];
  return [
    [...sudo, 'apt-get', 'update'],
    [...sudo, 'apt-get', 'install', '-y', '--no-install-recommends', pkg],
  ];
}
