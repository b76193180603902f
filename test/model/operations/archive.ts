/**
 * The audit archive in the harness: an archive worker (in the harness's process, on the real dev
 * server) keeps every chain and conversation that closes in a directory archive, its events
 * streamed to a file. Operations take the archive's target down and bring it back (the backlog is
 * drained), restart the archive worker, and check a closed root's archived export at once; the
 * end invariant `archived-once` says every root that closed is archived exactly once, verifies
 * with the archive's key, is the export its audit makes, and is streamed once.
 */
import path from 'node:path';
import fc from 'fast-check';
import { NativeConnection } from '@temporalio/worker';
import { exportAudit, verifyAuditExport } from '../../../src/audit';
import { listArchive, readArchived } from '../../../src/audit/archive/read';
import { DirectoryArchive, type ArchiveStore } from '../../../src/audit/archive/store';
import { FileSiemSink } from '../../../src/audit/siem/sink';
import { archiveNowSignal, archiverStatusQuery } from '../../../src/common/archive';
import { archiverWorkflowId, createArchiveWorker } from '../../../src/worker/archive';
import { readLines } from '../../integration/archive/fixtures';
import { exportKeys, keys } from '../../helpers/signing';
import { broken, clip, type Harness, type Invariant, operation, sleep } from '../harness';
import { pick, type RootModel } from '../model';
import type { ModelSystem } from '../system';
import { hostWorker, stopHostedWorker, type HostedWorker } from '../hostedWorker';

const QUEUE = 'model-archive';

/** An archive target that can be taken down: every call fails while it is. */
class OutageStore implements ArchiveStore {
  down = false;
  constructor(private readonly store: ArchiveStore) {}
  get location() {
    return this.store.location;
  }
  private up(): void {
    if (this.down) throw new Error(`the archive target ${this.store.location} is down (a harness outage)`);
  }
  async putIfAbsent(key: string, body: string) {
    this.up();
    return this.store.putIfAbsent(key, body);
  }
  async get(key: string) {
    this.up();
    return this.store.get(key);
  }
  async list(prefix?: string) {
    this.up();
    return this.store.list(prefix);
  }
  async delete(key: string) {
    this.up();
    return this.store.delete(key);
  }
}

/** The harness's archive: its target, its stream, its worker. */
class ModelArchive {
  readonly target: OutageStore;
  readonly siem: string;
  private worker?: HostedWorker;

  constructor(private readonly system: ModelSystem) {
    this.target = new OutageStore(new DirectoryArchive(path.join(system.dir, 'archive')));
    this.siem = path.join(system.dir, 'siem.jsonl');
  }

  async start(): Promise<void> {
    const connection = await NativeConnection.connect({ address: this.system.server.address });
    const worker = await createArchiveWorker({
      archive: this.target,
      siem: new FileSiemSink(this.siem),
      signer: keys.audit.signer,
      connection,
      client: this.system.client,
      taskQueue: QUEUE,
      archiver: { settleMs: 300, pollMs: 500, heartbeatTimeoutMs: 2_000 },
      worker: { shutdownGraceTime: '1 second' },
    });
    this.worker = hostWorker(worker, connection);
  }

  async stop(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    await stopHostedWorker(w);
  }

  wake(): Promise<void> {
    return this.system.client.workflow
      .getHandle(archiverWorkflowId(QUEUE))
      .signal(archiveNowSignal)
      .catch(() => undefined);
  }
}

const archives = new WeakMap<ModelSystem, ModelArchive>();

/** The system's archive, started on first use (and stopped when the system closes). */
async function archiveOf(system: ModelSystem): Promise<ModelArchive> {
  let a = archives.get(system);
  if (!a) {
    a = new ModelArchive(system);
    archives.set(system, a);
    const started = a;
    system.closers.push(() => started.stop());
    await a.start();
  }
  return a;
}

export const archiveOperations = [
  operation({
    name: 'archive_outage',
    group: 'faults',
    weight: 1,
    params: fc.record({}),
    applies: (m) => m.roots.length > 0,
    async run(h) {
      // Down until archive_restore or the end: chains that close meanwhile are the backlog.
      (await archiveOf(h.system)).target.down = true;
    },
  }),
  operation({
    name: 'archive_restore',
    group: 'faults',
    weight: 1,
    params: fc.record({}),
    applies: (m) => m.roots.length > 0,
    async run(h) {
      const a = await archiveOf(h.system);
      a.target.down = false;
      await a.wake();
    },
  }),
  operation({
    name: 'archive_worker_restart',
    group: 'faults',
    weight: 1,
    params: fc.record({}),
    applies: (m) => m.roots.length > 0,
    async run(h) {
      const a = await archiveOf(h.system);
      await a.stop();
      await a.start();
    },
  }),
  operation({
    name: 'archive_check',
    group: 'faults',
    weight: 1,
    params: fc.record({ root: fc.nat() }),
    applies: (m) => m.roots.some((r) => r.status !== 'open'),
    async run(h, p) {
      const a = await archiveOf(h.system);
      const root = pick(
        h.model.roots.filter((r) => r.status !== 'open'),
        p.root,
      )!;
      if (!a.target.down) await checkArchived(h, a, root, 'archive_check');
    },
  }),
];

/** `root`'s latest run is archived once, verifies, is its audit's export, and is streamed once. */
async function checkArchived(h: Harness, a: ModelArchive, root: RootModel, invariant: string): Promise<void> {
  const runId = (await h.system.client.workflow.getHandle(root.id).describe()).runId;
  await a.wake();
  let entries = await listArchive(a.target, { workflowId: root.id });
  for (const deadline = Date.now() + 60_000; !entries.some((e) => e.runId === runId) && Date.now() < deadline;) {
    await sleep(300);
    entries = await listArchive(a.target, { workflowId: root.id });
  }
  const mine = entries.filter((e) => e.runId === runId);
  if (mine.length !== 1 || mine[0]!.state !== 'archived') {
    const status = await h.system.client.workflow
      .getHandle(archiverWorkflowId(QUEUE))
      .query(archiverStatusQuery)
      .catch((err: Error) => err.message);
    return broken(
      h,
      invariant,
      `${root.kind} ${root.id} (run ${runId}, ${root.status}): ${mine.length} archived entries ${clip(mine.map((e) => `${e.state} ${e.key}`))} a minute after it closed; archiver: ${clip(status, 300)}`,
    );
  }
  const key = mine[0]!.key;
  const doc = await readArchived(a.target, key);
  const verdict = verifyAuditExport(JSON.parse(JSON.stringify(doc)), { exportKeys });
  if (!verdict.ok || verdict.headSignature?.status !== 'trusted')
    broken(
      h,
      invariant,
      `${key}: the archived export does not verify with the archive's key: ${clip(verdict.failure ?? verdict.headSignature, 300)}`,
    );
  const audited = exportAudit(await h.baton.audit(root.id));
  if (audited.head !== doc.head || audited.events.length !== doc.events.length)
    broken(
      h,
      invariant,
      `${key}: archived head ${doc.head} (${doc.events.length} events) ≠ its audit's export ${audited.head} (${audited.events.length} events)`,
    );
  const lines = readLines(a.siem).filter((l) => l.data.archiveKey === key);
  const ids = lines.map((l) => l.id);
  const expected = [...doc.events.map((e) => e.digest), `${doc.head}:closed`];
  if (ids.join() !== expected.join())
    broken(
      h,
      invariant,
      `${key}: streamed ${ids.length} events (${new Set(ids).size} distinct), the export has ${expected.length}`,
    );
}

export const archiveInvariants: Invariant[] = [
  {
    // Every chain and conversation that closed is archived exactly once, after any outage of the
    // archive's target ends: it verifies, it is its audit's export, its events streamed once.
    name: 'archived-once',
    when: 'end',
    async check(h) {
      const a = await archiveOf(h.system);
      a.target.down = false;
      await Promise.all(
        h.model.roots
          .filter((r) => !r.abandoned && r.status !== 'open')
          .map((r) => checkArchived(h, a, r, 'archived-once')),
      );
    },
  },
];
