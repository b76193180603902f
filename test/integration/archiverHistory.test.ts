/**
 * The audit archiver's history on a real server: every look writes history, chains or none, and a
 * worker that takes the archiver over (a restart) replays its run whole. The archiver continues as
 * new once a run holds `eventsPerRun` events, so no run grows past what a worker replays within a
 * workflow task's timeout, and a restarted archive worker archives at once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { archiverStatusQuery } from '../../src/common/archive';
import { DirectoryArchive } from '../../src/audit/archive/store';
import { archiverWorkflowId, createArchiveWorker } from '../../src/worker/archive';
import { keys } from '../helpers/signing';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-archiver-history-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the audit archiver', () => {
  it(
    'continues as new once its run holds eventsPerRun events, looks without chains included',
    { timeout: 90_000 },
    async () => {
      const queue = taskQueue();
      const eventsPerRun = 60;
      const worker = await createArchiveWorker({
        archive: new DirectoryArchive(dir),
        connection: server.env.nativeConnection,
        client: server.env.client,
        taskQueue: queue,
        signer: keys.audit.signer,
        // A task queue no chain runs on: every look finds nothing, and still writes history.
        archiver: { chainsOn: taskQueue(), settleMs: 0, pollMs: 20, eventsPerRun },
      });
      const handle = server.env.client.workflow.getHandle(archiverWorkflowId(queue));
      await worker.runUntil(async () => {
        const first = (await handle.describe()).runId;
        const status = await waitFor(
          () => handle.query(archiverStatusQuery),
          (s) => s.runs >= 2,
          30_000,
        );
        expect(status.runs).toBeGreaterThanOrEqual(2);
        // The run handed over as soon as a look ended past the bound: one look (about a dozen events) over it at most.
        const closed = await server.env.client.workflow.getHandle(archiverWorkflowId(queue), first).describe();
        expect(closed.status.name).toBe('CONTINUED_AS_NEW');
        expect(closed.historyLength).toBeGreaterThanOrEqual(eventsPerRun);
        expect(closed.historyLength).toBeLessThan(eventsPerRun + 20);
      });
    },
  );
});
