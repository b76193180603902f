/** The recorded chain whose tool call's worker stops heartbeating, and is started again. */
import { z } from 'zod';
import { defineTool, Team } from '../../src';
import { scriptedAgent as agent } from '../helpers/agents';
import type { Scenario } from './scenarios';

/** Blocks this process for `ms`: its activities stop heartbeating, as a frozen worker's would. */
function freeze(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * A tool call whose worker stops heartbeating (the process freezes for 3 s, past the 1-second
 * heartbeat timeout) with a retry budget of one attempt: the call is started again, and completes.
 */
export const lostWorkerScenario: Scenario = {
  name: 'lost-worker-restart',
  team: () => {
    let frozen = false;
    const ship = defineTool({
      name: 'ship',
      description: 'Ship',
      parameters: z.object({}),
      execute: () => {
        if (!frozen) {
          frozen = true;
          freeze(3000);
        }
        return 'shipped';
      },
    });
    return new Team([
      agent('a', [{ toolCalls: [{ name: 'ship', arguments: {} }] }, { text: 'shipped after a restart' }], {
        tools: [ship],
      }),
    ]);
  },
  drive: async (b) =>
    (await b.run('a', 'go', { heartbeatTimeout: '1 second', retry: { maximumAttempts: 1 } })).workflowId,
};
