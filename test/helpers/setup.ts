import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers log state changes at INFO; tests only want warnings and errors.
Runtime.install({ logger: new DefaultLogger('WARN') });
