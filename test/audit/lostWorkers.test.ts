import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { describe, expect, it } from 'vitest';
import { formatTimeline } from '../../src/audit/format';
import { brokenStep, lostWorkerRestarts } from '../../src/audit/history';
import { auditOf, eventsOf } from './recorded';

const events = (file: string) =>
  historyFromJSON(JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'histories', file), 'utf8'))).events ?? [];

describe('a call started again after a lost worker, read from a recorded history', () => {
  it('is one call in the audit, with its attempts across starts and the restart counted', () => {
    const audit = auditOf('lost-worker-restart.json');
    expect(audit.status).toBe('completed');
    expect(eventsOf(audit, 'tool_call').map((t) => [t.tool, t.result, t.execution])).toEqual([
      ['ship', 'shipped', expect.objectContaining({ status: 'completed', attempts: 2, lostWorkers: 1 })],
    ]);
    expect(eventsOf(audit, 'model_turn')).toHaveLength(2);
    expect(formatTimeline(audit)).toMatch(/ship\b.*2 attempts, started again after a lost worker\)/);
  });

  // The recording of today's code, and the one from before chains put their team version on record.
  const recordings = [
    { file: 'lost-worker-restart.json', lost: '28', timedOut: '30', restart: '36' },
    { file: 'before-team-version/lost-worker-restart.json', lost: '22', timedOut: '24', restart: '30' },
  ];

  it.each(recordings)(
    'pairs each restart with the start a lost worker ended ($file)',
    ({ file, lost, timedOut, restart }) => {
      const history = events(file);
      const restarts = lostWorkerRestarts(history);
      expect([...restarts]).toEqual([[restart, lost]]);
      expect(
        history
          .find((e) => String(e.eventId) === timedOut)
          ?.activityTaskTimedOutEventAttributes?.scheduledEventId?.toString(),
      ).toBe(lost);
    },
  );

  it.each(recordings)(
    'takes the restart, not the lost start, as the step a replay continues from ($file)',
    ({ file, restart }) => {
      // The history as it stood while the restart ran: the lost start never completed, nor did its restart.
      const running = events(file).filter((e) => Number(e.eventId) <= Number(restart) + 1);
      expect(brokenStep(running)?.eventId?.toString()).toBe(restart);
    },
  );

  it('a history from before restarts: the lost call timed out and failed the chain', () => {
    const audit = auditOf('before-lost-worker-restarts/heartbeat-timeout-fails.json');
    expect(audit.status).toBe('failed');
    expect(eventsOf(audit, 'tool_call').map((t) => t.execution)).toEqual([
      expect.objectContaining({ status: 'timed_out', attempts: 1 }),
    ]);
    expect(eventsOf(audit, 'tool_call')[0]?.execution?.lostWorkers).toBeUndefined();
  });
});
