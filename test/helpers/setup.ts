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
