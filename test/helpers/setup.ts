import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatWithOptions } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers log state changes at INFO; tests only want warnings and errors. They go through the
// console, which vitest keeps with the test that was running: shown when that test fails, dropped
// when it passes (`silent: 'passed-only'`), since a passing test's warnings are failures it provoked.
Runtime.install({
  logger: new DefaultLogger('WARN', ({ level, message, meta }) => {
    const line = `[worker ${level}] ${message}${meta === undefined ? '' : ` ${formatWithOptions({ depth: 3 }, meta)}`}`;
    if (level === 'ERROR') console.error(line);
    else console.warn(line);
  }),
});

// The support example keeps its refund ledger on disk (`BATON_EXAMPLE_DATA`, else one directory
// under the OS temp dir that every process shares): each test file gets its own, so a refund one
// file issues is not an order another file finds "already refunded".
process.env.BATON_EXAMPLE_DATA ??= fs.mkdtempSync(path.join(os.tmpdir(), 'baton-example-test-'));
