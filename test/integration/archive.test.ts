/**
 * The audit archive on a real server with real workers: chains that close every way (completed,
 * failed, cancelled, terminated, timed out) and a conversation are archived to a directory and to
 * an S3-compatible server (moto, started here), redacted as the team and the archive say, their
 * events streamed once; they list, fetch and verify through `baton audit --archive` after the dev
 * server has deleted their histories; an archive worker SIGKILLed while archiving leaves one
 * object and a stream with every event once; an erasure leaves a tombstone and every other chain
 * verifying.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ArchiverStatus } from '../../src/common/archive';
import { listArchive } from '../../src/audit/archive/read';
import { openArchive } from '../../src/audit/archive/location';
import { archiverWorkflowId, startArchiver } from '../../src/worker/archive';
import { exportKeys } from '../helpers/signing';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { archiveWorker, CARD, closeEveryWay, EMAIL, status, team } from './archive/chains';
import { audit, deleteHistories, objectsOf, readLines, StallingArchiveWorker } from './archive/fixtures';
import { useArchiveS3 } from './archive/s3';

const server = useTemporalServer();
const s3 = useArchiveS3();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-archive-'));
const keysFile = path.join(dir, 'export-keys.json');
fs.writeFileSync(keysFile, JSON.stringify(exportKeys));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the audit archive', () => {
  it('keeps every closed chain and conversation, redacted, in a directory and in S3, verifiable after their histories are deleted', async (ctx) => {
    const chains = taskQueue();
    const dirArchive = path.join(dir, 'archive');
    const siem = path.join(dir, 'siem.jsonl');
    const [dirQueue, s3Queue] = [`archive-${randomUUID()}`, `archive-${randomUUID()}`];
    const s3Location = `s3://${s3.bucket}/baton`;
    const closed = await closeEveryWay(server.env, chains);
    // Archive workers start after the chains closed: the backlog is drained.
    const archives = [
      { location: dirArchive, queue: dirQueue, siem },
      ...(s3.skip ? [] : [{ location: s3Location, queue: s3Queue }]),
    ];
    const workers = await Promise.all(
      archives.map((a) => archiveWorker(server.env, a.location, a.queue, chains, a.siem ? { siem: a.siem } : {})),
    );
    await Promise.all(
      workers.map((w, i) =>
        w.runUntil(
          waitFor(
            () => status(server.env, archives[i]!.queue),
            (s: ArchiverStatus) => s.totals.archived === 6,
            60_000,
          ),
        ),
      ),
    );
    for (const store of archives.map((a) => openArchive(a.location))) {
      const entries = await listArchive(store);
      expect(entries.map((e) => e.workflowId).sort()).toEqual(Object.values(closed).sort());
      expect(
        entries.every(
          (e) => e.state === 'archived' && e.team === 'frontdesk' && e.date === new Date().toISOString().slice(0, 10),
        ),
      ).toBe(true);
      expect(entries.find((e) => e.workflowId === closed.completed)?.tenant).toBe('acme');
      for (const e of entries) {
        const text = (await store.get(e.key))!;
        // The team's secret never leaves; the archive's personal data field is hashed.
        expect([text.includes(CARD), text.includes(EMAIL)]).toEqual([false, false]);
        if (e.workflowId === closed.completed || e.workflowId === closed.failed)
          expect(text).toMatch(/hmac-sha256:[0-9a-f]{64}/);
      }
      expect(
        JSON.parse((await store.get(entries.find((e) => e.workflowId === closed.completed)!.key))!).events.map(
          (x: { event: { kind: string } }) => x.event.kind,
        ),
      ).toEqual(expect.arrayContaining(['chain', 'run_started', 'model_turn', 'tool_call', 'handoff', 'final_answer']));
    }

    // The stream: every event of every archived export once, and one `closed` event per chain.
    const lines = readLines(siem);
    expect(new Set(lines.map((l) => l.id)).size).toBe(lines.length);
    const ends = lines.filter((l) => l.type === 'dev.baton.audit.closed');
    expect(Object.fromEntries(ends.map((l) => [l.subject, (l.data.event as { status: string }).status]))).toEqual({
      [closed.completed]: 'completed',
      [closed.failed]: 'failed',
      [closed.cancelled]: 'cancelled',
      [closed.terminated]: 'terminated',
      [closed.timedOut]: 'timed_out',
      [closed.conversation]: 'completed',
    });
    for (const e of await listArchive(openArchive(dirArchive))) {
      const doc = JSON.parse((await openArchive(dirArchive).get(e.key))!) as { events: { digest: string }[] };
      expect(
        lines.filter((l) => l.subject === e.workflowId && l.type !== 'dev.baton.audit.closed').map((l) => l.id),
      ).toEqual(doc.events.map((x) => x.digest));
    }
    const streamed = fs.readFileSync(siem, 'utf8');
    expect([streamed.includes(CARD), streamed.includes(EMAIL)]).toEqual([false, false]);

    // Temporal forgets them; the archive does not.
    expect((await deleteHistories(server.env, chains)).sort()).toEqual(Object.values(closed).sort());
    for (const { location } of archives) {
      const listed = await audit(['--archive', location]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain('6 archived, 0 erased, 0 lost');
      const checked = await audit(['--archive', location, '--verify', '--export-keys', keysFile]);
      expect(checked.stderr).toBe('');
      expect(checked.stdout).toContain('6 of 6 archived exports verified');
      expect(checked.stdout.match(/signed with key audit-1/g)).toHaveLength(6);
      const file = path.join(dir, `fetched-${randomUUID()}.json`);
      expect((await audit(['--archive', location, closed.completed, '--export', file])).code).toBe(0);
      const offline = await audit(['--verify', file, '--export-keys', keysFile]);
      expect(offline.code).toBe(0);
      expect(offline.stdout).toContain('verified:');
    }
    // Untrusted heads are refused: the archive is only as good as the key that signed it.
    expect((await audit(['--archive', dirArchive, '--verify'])).code).toBe(1);
    ctx.skip(s3.skip !== undefined, s3.skip);
  }, 300_000);
});

describe('an archive worker killed while it archives', () => {
  it.for([
    ['a directory', 'after-put', () => path.join(dir, `killed-${randomUUID()}`)],
    ['an S3 bucket', 'after-put', () => `s3://${s3.bucket}/killed-${randomUUID().slice(0, 8)}`],
    ['a directory, mid-stream', 'after-stream', () => path.join(dir, `killed-${randomUUID()}`)],
  ] as const)(
    'leaves one object in %s (stopped %s), and the stream every event once',
    async ([where, stall, makeLocation], ctx) => {
      ctx.skip(where.includes('S3') && s3.skip !== undefined, s3.skip);
      const location = makeLocation();
      const chains = taskQueue();
      const queue = `archive-${randomUUID()}`;
      const siem = path.join(dir, `siem-${randomUUID()}.jsonl`);
      const ids = await withWorker(
        server.env,
        team(),
        async (baton) => {
          const runs = await Promise.all([baton.start('closer', 'one'), baton.start('closer', 'two')]);
          await Promise.all(runs.map((r) => r.result()));
          return runs.map((r) => r.workflowId);
        },
        { taskQueue: chains },
      );
      const first = new StallingArchiveWorker(server.env.address, {
        ARCHIVE_LOCATION: location,
        ARCHIVE_QUEUE: queue,
        ARCHIVE_CHAINS_ON: chains,
        ARCHIVE_SIEM: siem,
        ARCHIVE_STALL: stall,
      });
      const stalledAt = await first.stalled;
      await first.kill();
      const store = openArchive(location);
      // Killed after the write: the object is there, once.
      expect((await listArchive(store)).map((e) => e.key)).toContain(stalledAt);
      // Another worker takes over the archiver and the attempt that was cut short.
      const second = await archiveWorker(server.env, location, queue, chains, { siem, personalData: undefined });
      const done = await second.runUntil(
        waitFor(
          () => status(server.env, queue),
          (s: ArchiverStatus) => s.totals.archived + s.totals.alreadyArchived === 2,
          60_000,
        ),
      );
      expect(done.totals).toMatchObject({ archived: 1, alreadyArchived: 1 });
      for (const id of ids) expect(await objectsOf(location, id, s3.endpoint)).toHaveLength(1);
      const entries = await listArchive(store);
      expect(entries.map((e) => e.workflowId).sort()).toEqual([...ids].sort());
      const lines = readLines(siem);
      expect(lines.length).toBe(new Set(lines.map((l) => l.id)).size);
      for (const e of entries) {
        const doc = JSON.parse((await store.get(e.key))!) as { events: { digest: string }[]; head: string };
        expect(lines.filter((l) => l.subject === e.workflowId).map((l) => l.id)).toEqual([
          ...doc.events.map((x) => x.digest),
          `${doc.head}:closed`,
        ]);
      }
      const checked = await audit(['--archive', location, '--verify', '--export-keys', keysFile]);
      expect(checked.stdout).toContain('2 of 2 archived exports verified');
    },
  );
});

describe('erasing a chain for a data subject', () => {
  it('deletes its archived export, leaves a tombstone, and every other chain verifies; the archiver does not archive it again', async () => {
    const location = path.join(dir, `erase-${randomUUID()}`);
    const chains = taskQueue();
    const queue = `archive-${randomUUID()}`;
    const [gone, kept] = await withWorker(
      server.env,
      team(),
      async (baton) => {
        const runs = await Promise.all([baton.start('closer', 'forget me'), baton.start('closer', 'keep me')]);
        await Promise.all(runs.map((r) => r.result()));
        return runs.map((r) => r.workflowId);
      },
      { taskQueue: chains },
    );
    const worker = await archiveWorker(server.env, location, queue, chains);
    await worker.runUntil(async () => {
      await waitFor(
        () => status(server.env, queue),
        (s: ArchiverStatus) => s.totals.archived === 2,
        60_000,
      );
      const erased = await audit([
        '--archive',
        location,
        '--erase',
        gone!,
        '--reason',
        'GDPR Art. 17 request 7',
        '--by',
        'dpo@example.com',
      ]);
      expect(erased.code).toBe(0);
      expect(erased.stdout).toMatch(/^erased chains\/.*tombstone kept$/m);
      // Archived afresh from the start, the archiver meets the erased chain again and leaves it erased.
      await server.env.client.workflow.getHandle(archiverWorkflowId(queue)).terminate('start it afresh');
      await startArchiver(server.env.client, {
        taskQueue: queue,
        chainsOn: chains,
        settleMs: 300,
        pollMs: 300,
        heartbeatTimeoutMs: 2_000,
      });
      const again = await waitFor(
        () => status(server.env, queue),
        (s: ArchiverStatus) => s.totals.alreadyArchived + s.totals.erased === 2,
        60_000,
      );
      expect(again.totals).toMatchObject({ archived: 0, alreadyArchived: 1, erased: 1 });
    });
    const listed = await audit(['--archive', location]);
    expect(listed.stdout).toContain('1 archived, 1 erased, 0 lost');
    expect(listed.stdout).toMatch(new RegExp(`erased .*${gone}`));
    const checked = await audit(['--archive', location, '--verify', '--export-keys', keysFile]);
    expect(checked.stdout).toContain('1 of 1 archived exports verified');
    expect(checked.stdout).toContain(kept);
    const tombstone = JSON.parse(
      fs.readFileSync((await openArchive(location).list('tombstones/')).map((k) => path.join(location, k))[0]!, 'utf8'),
    );
    expect(tombstone).toMatchObject({
      schema: 'baton.archive-tombstone/v1',
      workflowId: gone,
      reason: 'GDPR Art. 17 request 7',
      by: 'dpo@example.com',
      head: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await objectsOf(location, gone!, s3.endpoint)).toHaveLength(0);
  });
});
