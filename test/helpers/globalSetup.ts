import path from 'node:path';
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import { findTemporalBinary } from '../../src/devserver/binary';
import { findChromium, installChromium, SEARCHED } from './chromium';

/** The test file that drives a browser. */
const PAGE_TESTS = 'test/server/page.test.ts';

/**
 * What the tests need from the machine, found or installed once before test files run in
 * parallel: the Temporal CLI, and Chromium when the page tests are among the files to run.
 */
export default async function setup(project: TestProject): Promise<void> {
  const cli = findTemporalBinary('cli');
  if (!cli) throw new Error('no Temporal CLI: set TEMPORAL_CLI_PATH or make python3 -m pip work');
  process.env.TEMPORAL_CLI_PATH = cli;
  if (await runsPageTests(project)) provideChromium();
}

async function runsPageTests(project: TestProject): Promise<boolean> {
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  const { testFiles } = await project.globTestFiles(filters);
  return testFiles.some((f) => path.relative(project.config.root, f).split(path.sep).join('/') === PAGE_TESTS);
}

/** BATON_CHROMIUM for the page tests: the Chromium found, or one installed now; or, when neither works, why (the page tests fail with it). */
function provideChromium(): void {
  const say = (line: string) => console.log(line);
  const given = process.env.BATON_CHROMIUM;
  const found = findChromium();
  if (found) {
    say(`page tests: Chromium at ${found}`);
    process.env.BATON_CHROMIUM = found;
    return;
  }
  if (given) {
    process.env.BATON_CHROMIUM_PROBLEM = `BATON_CHROMIUM is ${given}, which is not an executable: point it at Chromium or Chrome, or unset it to have one found or installed`;
    say(`page tests: ${process.env.BATON_CHROMIUM_PROBLEM}`);
    return;
  }
  say(`page tests: no Chromium found (looked at ${SEARCHED}); installing one as CI does`);
  try {
    process.env.BATON_CHROMIUM = installChromium(say);
    say(`page tests: Chromium at ${process.env.BATON_CHROMIUM}`);
  } catch (err) {
    say(`page tests: ${(err as Error).message}`);
    process.env.BATON_CHROMIUM_PROBLEM = (err as Error).message;
  }
}
