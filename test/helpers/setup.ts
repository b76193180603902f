import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatWithOptions } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { removeRedisScratch } from './redis';

// Workers log state changes at INFO; tests only want warnings and errors. They go through the
// console, which vitest keeps with the test that was running: shown when that test fails, dropped
// when it passes (`silent: 'passed-only'`), since a passing test's warnings are failures it provoked.
// Once a process: files that share one (vitest's `isolate: false`) run this file each.
const installed = Symbol.for('baton.test.runtime');
(globalThis as { [installed]?: Runtime })[installed] ??= Runtime.install({
  logger: new DefaultLogger('WARN', ({ level, message, meta }) => {
    const line = `[worker ${level}] ${message}${meta === undefined ? '' : ` ${formatWithOptions({ depth: 3 }, meta)}`}`;
    if (level === 'ERROR') console.error(line);
    else console.warn(line);
  }),
});

// The environment as the suite started it, again for each file: what one file sets (a profile, a
// key, an address) is not there for the next one the same process runs.
const started = Symbol.for('baton.test.env');
const base = ((globalThis as { [started]?: NodeJS.ProcessEnv })[started] ??= { ...process.env });
for (const key of Object.keys(process.env)) if (!Object.hasOwn(base, key)) delete process.env[key];
Object.assign(process.env, base);
afterAll(() => {
  vi.restoreAllMocks();
  removeRedisScratch();
});
// Modules are evaluated once a process and shared by the files it runs, baton's own among them.
// What they keep for the process (a connection to a URL, a cache by run id) no test asserts on
// from one file to the next; the examples' order catalogue is read-only, and what changes is on
// disk, in the file's own directory below. The harness forgets its systems' roots (test/model/systemState.ts).

// The support example keeps its refund ledger on disk (`BATON_EXAMPLE_DATA`, else one directory
// under the OS temp dir that every process shares): each test file gets its own, so a refund one
// file issues is not an order another file finds "already refunded", removed once the file ends.
if (!process.env.BATON_EXAMPLE_DATA) {
  const exampleData = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-example-test-'));
  process.env.BATON_EXAMPLE_DATA = exampleData;
  afterAll(() => fs.rmSync(exampleData, { recursive: true, force: true }));
}

// `BATON_TEST_CPU=<file>`: each test file appends, once it has run, one JSON line with the CPU
// seconds it used (its import, tests and hooks) and those of the processes it started and waited for (a dev
// server, a worker, the CLI): where the suite's time goes (see bench/README.md).
const cpuLog = process.env.BATON_TEST_CPU;
if (cpuLog) {
  /** CPU seconds of this process, and of the processes it started and waited for, so far. */
  const cpu = () => {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const [utime, stime, cutime, cstime] = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .slice(11, 15)
      .map((ticks) => Number(ticks) / 100);
    return { own: utime! + stime!, children: cutime! + cstime! };
  };
  let file = '';
  // From here: this file runs before each test file is imported, in whichever process runs it.
  const at = { ms: Date.now(), ...cpu() };
  beforeAll(() => {
    file = path.relative(process.cwd(), expect.getState().testPath ?? '');
  });
  // After the file's own afterAll hooks (vitest runs them in reverse), when its servers are stopped.
  afterAll(() => {
    const now = cpu();
    const line = { file, ms: Date.now() - at.ms, own: now.own - at.own, children: now.children - at.children };
    fs.appendFileSync(cpuLog, `${JSON.stringify(line)}\n`);
  });
}
