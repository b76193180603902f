/**
 * An archive worker process the archive tests SIGKILL in the middle of archiving a chain. It runs
 * the real archive worker, over a store or a SIEM stream that stops dead at one point of the
 * first chain (`ARCHIVE_STALL`): `after-put` (the export is written, nothing streamed),
 * `after-stream` (the events are appended to the stream, its cursor and receipt not written). It
 * prints `ready`, then `stalled <key>` when it stops.
 *
 * Environment: `TEMPORAL_ADDRESS`, `ARCHIVE_LOCATION`, `ARCHIVE_QUEUE`, `ARCHIVE_CHAINS_ON`,
 * `ARCHIVE_SIEM` (a file), `ARCHIVE_STALL`, and for S3 the AWS SDK's variables.
 */
import fs from 'node:fs';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { openArchive } from '../../../src/audit/archive/location';
import type { ArchiveStore } from '../../../src/audit/archive/store';
import { FileSiemSink, type SiemSink } from '../../../src/audit/siem/sink';
import { createArchiveWorker } from '../../../src/worker/archive';
import { keys } from '../../helpers/signing';

const never = () => new Promise<never>(() => undefined);
const stalled = (key: string) => process.stdout.write(`stalled ${key}\n`);

function stallingStore(store: ArchiveStore): ArchiveStore {
  return {
    location: store.location,
    get: (key) => store.get(key),
    list: (prefix) => store.list(prefix),
    delete: (key) => store.delete(key),
    async putIfAbsent(key, body) {
      const done = await store.putIfAbsent(key, body);
      if (key.startsWith('chains/')) {
        stalled(key);
        return never();
      }
      return done;
    },
  };
}

function stallingSiem(file: string): SiemSink {
  const sink = new FileSiemSink(file);
  return {
    location: sink.location,
    async write(key, events) {
      // What a crash between the append and the cursor leaves: the lines, and no record of them.
      fs.appendFileSync(file, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
      stalled(key);
      return never();
    },
  };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const stall = process.env.ARCHIVE_STALL;
  const store = openArchive(process.env.ARCHIVE_LOCATION!);
  const siemFile = process.env.ARCHIVE_SIEM!;
  const worker = await createArchiveWorker({
    archive: stall === 'after-put' ? stallingStore(store) : store,
    siem: stall === 'after-stream' ? stallingSiem(siemFile) : new FileSiemSink(siemFile),
    signer: keys.audit.signer,
    taskQueue: process.env.ARCHIVE_QUEUE!,
    archiver: { chainsOn: process.env.ARCHIVE_CHAINS_ON!, settleMs: 300, pollMs: 300, heartbeatTimeoutMs: 2_000 },
  });
  process.stdout.write('ready\n');
  await worker.run();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
