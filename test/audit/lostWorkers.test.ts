import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { describe, expect, it } from 'vitest';
import { formatTimeline } from '../../src/audit/format';
import { brokenStep, lostWorkerRestarts } from '../../src/audit/history';
import { auditOf, eventsOf } from './recorded';

const events = (file: string) => historyFromJSON(JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'histories', file), 'utf8'))).events ?? [];

describe('a call started again after a lost worker, read from a recorded history', () => {
  it('is one call in the audit, with its attempts across starts and the restart counted', () => {
    const audit = auditOf('lost-worker-restart.json');
    expect(audit.status).toBe('completed');
    expect(eventsOf(audit, 'tool_call').map((t) => [t.tool, t.result, t.execution])).toEqual([['ship', 'shipped', expect.objectContaining({ status: 'completed', attempts: 2, lostWorkers: 1 })]]);
    expect(eventsOf(audit, 'model_turn')).toHaveLength(2);
    expect(formatTimeline(audit)).toMatch(/ship\b.*2 attempts, started again after a lost worker\)/);
  });

  it('pairs each restart with the start a lost worker ended', () => {
    const history = events('lost-worker-restart.json');
    const restarts = lostWorkerRestarts(history);
    expect([...restarts]).toEqual([['30', '22']]);
    expect(history.find((e) => String(e.eventId) === '24')?.activityTaskTimedOutEventAttributes?.scheduledEventId?.toString()).toBe('22');
  });

  it('takes the restart, not the lost start, as the step a replay continues from', () => {
    // The history as it stood while the restart ran: the lost start never completed, nor did its restart.
    const running = events('lost-worker-restart.json').filter((e) => Number(e.eventId) <= 31);
    expect(brokenStep(running)?.eventId?.toString()).toBe('30');
  });

  it('a history from before restarts: the lost call timed out and failed the chain', () => {
    const audit = auditOf('before-lost-worker-restarts/heartbeat-timeout-fails.json');
    expect(audit.status).toBe('failed');
    expect(eventsOf(audit, 'tool_call').map((t) => t.execution)).toEqual([expect.objectContaining({ status: 'timed_out', attempts: 1 })]);
    expect(eventsOf(audit, 'tool_call')[0]?.execution?.lostWorkers).toBeUndefined();
  });
});
