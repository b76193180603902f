/** The test command's output: a real failure stands out, failures a passing test provokes on purpose stay out of it. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

it("shows a failing test's worker warnings and console, and not those of a passing test", async () => {
  const vitest = path.join(root, 'node_modules/vitest/vitest.mjs');
  const run = await promisify(execFile)(
    process.execPath,
    [vitest, 'run', '--config', 'test/tooling/fixtures/vitest.fixture.mts'],
    { cwd: root, env: { ...process.env, CI: '1', NO_COLOR: '1' } },
  ).then(
    () => ({ code: 0, output: '' }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, output: err.stdout + err.stderr }),
  );
  expect(run.code).toBe(1);
  expect(run.output).toContain('Activity failed (the real failure)');
  expect(run.output).toContain("expected 'real' to be 'expected'");
  expect(run.output).not.toContain('expected-failure-7f3a');
  expect(run.output).not.toContain('console noise of a passing test');
});
