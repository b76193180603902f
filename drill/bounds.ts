/**
 * The bounds drill: the trust-boundary tests that flood a waiting chain, at the size `npm test`
 * scales down. test/bounds/growth.test.ts sends refused signals of ~1.9 MB past Temporal's own
 * 50 MB limit on a run's history (60 MB, 32 signals a test) instead of past the 12 MB limit its
 * server is given in `npm test`; test/bounds/floods.test.ts lands 10,000 refused decisions in one
 * activation instead of 2,500, on a server with Temporal's defaults. The files run under vitest,
 * with their own assertions, with `BATON_BOUNDS_FULL_SIZE=1`; each failing test is a problem.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { seconds, type Cell } from './report';
import type { DrillSettings } from './run';
import type { DrillReport } from './sigkill';

/** The test files the drill runs at full size. */
export const FULL_SIZE_FILES = ['test/bounds/growth.test.ts', 'test/bounds/floods.test.ts'];

const ROOT = path.resolve(__dirname, '..');

/** What vitest's JSON reporter says of each test. */
interface VitestReport {
  testResults: {
    name: string;
    message?: string;
    assertionResults: { fullName: string; status: string; duration?: number; failureMessages: string[] }[];
  }[];
}

export async function boundsDrill(s: DrillSettings): Promise<DrillReport> {
  const output = path.join(s.dir, 'bounds-vitest.json');
  const started = Date.now();
  const code = await new Promise<number | null>((resolve, reject) => {
    const vitest = spawn(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/vitest/vitest.mjs'),
        'run',
        ...FULL_SIZE_FILES,
        '--maxWorkers',
        '1',
        '--reporter',
        'default',
        '--reporter',
        'json',
        '--outputFile.json',
        output,
      ],
      { cwd: ROOT, env: { ...process.env, BATON_BOUNDS_FULL_SIZE: '1' }, stdio: 'inherit' },
    );
    vitest.on('error', reject);
    vitest.on('close', resolve);
  });
  const report = fs.existsSync(output)
    ? (JSON.parse(fs.readFileSync(output, 'utf8')) as VitestReport)
    : { testResults: [] };
  const tests = report.testResults.flatMap((file) =>
    file.assertionResults.map((t) => ({ file: path.relative(ROOT, file.name), ...t })),
  );
  const failed = tests.filter((t) => t.status !== 'passed');
  const problems = [
    ...failed.map(
      (t) =>
        `${t.file} › ${t.fullName}: ${t.status}\n    ${t.failureMessages.join('\n').split('\n').slice(0, 8).join('\n    ')}`,
    ),
    ...report.testResults.filter((f) => f.message).map((f) => `${path.relative(ROOT, f.name)}: ${f.message}`),
  ];
  if (code !== 0 && problems.length === 0)
    problems.push(`vitest exited with ${code} without a report of failed tests (see its output above)`);
  return {
    title: `Bounds drill: ${FULL_SIZE_FILES.join(', ')} at full size (Temporal's own history limit)`,
    summary: {
      drill: 'bounds',
      tests: tests.length,
      passed: tests.length - failed.length,
      failed: failed.length,
      time: seconds(Date.now() - started),
    },
    faults: tests.map((t): Record<string, Cell> => ({ test: t.fullName, status: t.status, time: seconds(t.duration) })),
    problems,
    details: report,
  };
}
