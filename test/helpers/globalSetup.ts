import path from 'node:path';
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import { findTemporalBinary } from '../../src/devserver/binary';
import { findChromium, installChromium, SEARCHED } from './chromium';
import { findRedisServer, installRedisServer, SEARCHED_REDIS } from './redis';

/** The test files that drive a browser. */
const PAGE_TESTS = [
  'test/server/page.test.ts',
  'test/streams/page.test.ts',
  'test/examples/webChat.test.ts',
  'test/react/hooks.test.ts',
];
/** The test files that start a Redis server (the stream broker); the model-based harness's too (test/model/). */
const REDIS_TESTS = [
  'test/streams/broker.test.ts',
  'test/streams/redis.test.ts',
  'test/streams/redisCluster.test.ts',
  'test/examples/webChat.test.ts',
];

/**
 * What the tests need from the machine, found or installed once before test files run in
 * parallel: the Temporal CLI, Chromium when the page tests are among the files to run, and
 * Debian's redis-server when the stream broker's tests are.
 */
export default async function setup(project: TestProject): Promise<void> {
  const cli = findTemporalBinary('cli');
  if (!cli) throw new Error('no Temporal CLI: set TEMPORAL_CLI_PATH or make python3 -m pip work');
  process.env.TEMPORAL_CLI_PATH = cli;
  const files = await testFiles(project);
  if (files.some((f) => PAGE_TESTS.includes(f))) provideChromium();
  if (files.some((f) => REDIS_TESTS.includes(f) || f.startsWith('test/model/'))) provideRedis();
}

async function testFiles(project: TestProject): Promise<string[]> {
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  const { testFiles } = await project.globTestFiles(filters);
  return testFiles.map((f) => path.relative(project.config.root, f).split(path.sep).join('/'));
}

/** BATON_REDIS_SERVER for the broker's tests: the redis-server found, or one installed now; or, when neither works, why (those tests fail with it). */
function provideRedis(): void {
  const say = (line: string) => console.log(line);
  const found = findRedisServer();
  if (found) {
    process.env.BATON_REDIS_SERVER = found;
    return;
  }
  if (process.env.BATON_REDIS_SERVER) {
    process.env.BATON_REDIS_PROBLEM = `BATON_REDIS_SERVER is ${process.env.BATON_REDIS_SERVER}, which is not an executable: point it at redis-server, or unset it to have one found or installed`;
    delete process.env.BATON_REDIS_SERVER;
    return;
  }
  say(`stream tests: no redis-server found (looked at ${SEARCHED_REDIS}); installing Debian's as CI does`);
  try {
    process.env.BATON_REDIS_SERVER = installRedisServer(say);
  } catch (err) {
    say(`stream tests: ${(err as Error).message}`);
    process.env.BATON_REDIS_PROBLEM = (err as Error).message;
  }
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
