/**
 * Faults: a worker process SIGKILLed (it comes back on its own half a second later, its calls
 * started again elsewhere or by it), and the dev server `kill -9`ed and started again on its
 * database file.
 */
import fc from 'fast-check';
import { operation } from '../harness';
import { openRoots } from '../model';

export const faultOperations = [
  operation({
    name: 'kill_worker',
    group: 'faults',
    weight: 3,
    params: fc.record({ slot: fc.nat() }),
    applies: (m) => openRoots(m).length > 0,
    async run(h, p) {
      h.system.kill(p.slot % h.system.hosts.size);
    },
  }),
  operation({
    name: 'restart_server',
    group: 'faults',
    weight: 1,
    params: fc.record({ downMs: fc.integer({ min: 300, max: 2500 }) }),
    applies: (m) => openRoots(m).length > 0,
    run: (h, p) => h.system.restartServer(p.downMs),
  }),
];
