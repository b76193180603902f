/**
 * How the SIGKILL drill measures recovery after a kill (drill/verify.ts), on the task and call
 * timelines a drill records: a kill inside a workflow task costs the workflow task timeout it
 * waits out, and a chain that the server hands to a worker a later kill hit counts for that kill.
 */
import { describe, expect, it } from 'vitest';
import { recoveryAfterKill, type HistoryFindings, type TaskEvent } from '../../drill/verify';
import type { Attempt, Kill } from '../../drill/workers';

const chain = (workflowId: string, tasks: TaskEvent[]): HistoryFindings =>
  ({ workflowId, tasks }) as unknown as HistoryFindings;
const kill = (identity: string, at: number, inFlight: Attempt[] = []): Kill => ({
  at,
  slot: 0,
  identity,
  phase: 'model',
  inFlight,
});
const call = (workflowId: string, activityId: string, at: number, identity: string): Attempt => ({
  workflowId,
  activityId,
  activity: 'callModel',
  attempt: 1,
  at,
  identity,
});

describe('recovery after a kill, as the SIGKILL drill measures it', () => {
  it('counts a kill inside a workflow task as the workflow task timeout it waits out', () => {
    const k = kill('w1', 1_000);
    const h = chain('c', [
      { type: 'scheduled', at: 990 },
      { type: 'started', at: 995, identity: 'w1' },
      { type: 'timed_out', at: 8_995 },
      { type: 'scheduled', at: 8_995 },
      { type: 'started', at: 9_000, identity: 'w2' },
    ]);
    expect(recoveryAfterKill(k, [], [h])).toBe(8_000);
  });

  it('counts a chain cached on the killed worker from the task scheduled after the kill', () => {
    const k = kill('w1', 1_000);
    const h = chain('c', [
      { type: 'started', at: 900, identity: 'w1' },
      { type: 'completed', at: 950, identity: 'w1' },
      { type: 'scheduled', at: 3_000 },
      { type: 'timed_out', at: 4_000 },
      { type: 'scheduled', at: 4_000 },
      { type: 'started', at: 4_010, identity: 'w2' },
    ]);
    expect(recoveryAfterKill(k, [], [h])).toBe(1_010);
  });

  it('ends the wait of a call when a worker that a later kill hit took its chain, and counts the rest for that kill', () => {
    const first = kill('w1', 1_000, [call('c', '5', 800, 'w1')]);
    // The server hands the chain's task to w2's poll 60 ms after w2 died; it times out 8 s later.
    const second = kill('w2', 4_700);
    const tasks: TaskEvent[] = [
      { type: 'started', at: 700, identity: 'w1' },
      { type: 'completed', at: 750, identity: 'w1' },
      { type: 'scheduled', at: 3_700 },
      { type: 'timed_out', at: 4_700 },
      { type: 'scheduled', at: 4_700 },
      { type: 'started', at: 4_760, identity: 'w2' },
      { type: 'timed_out', at: 12_760 },
      { type: 'scheduled', at: 12_760 },
      { type: 'started', at: 12_770, identity: 'w3' },
      { type: 'completed', at: 12_800, identity: 'w3' },
    ];
    const starts = [call('c', '6', 12_810, 'w3')];
    const kills = [first, second];
    expect(recoveryAfterKill(first, starts, [chain('c', tasks)], kills)).toBe(3_760);
    expect(recoveryAfterKill(second, starts, [chain('c', tasks)], kills)).toBe(8_010);
    // Without the later kill to answer for it, the whole wait is the first kill's.
    expect(recoveryAfterKill(first, starts, [chain('c', tasks)])).toBe(11_810);
  });

  it('takes a task whose completion is recorded just after the kill as ended, not interrupted', () => {
    const k = kill('w1', 1_000);
    const h = chain('c', [
      { type: 'started', at: 990, identity: 'w1' },
      { type: 'completed', at: 1_005, identity: 'w1' },
      { type: 'scheduled', at: 4_000 },
      { type: 'timed_out', at: 5_000 },
      { type: 'scheduled', at: 5_000 },
      { type: 'started', at: 5_010, identity: 'w2' },
    ]);
    expect(recoveryAfterKill(k, [], [h])).toBe(1_010);
  });

  it('keeps the whole wait of a call when the worker a later kill hit had already passed the chain on', () => {
    const first = kill('w1', 1_000, [call('c', '5', 800, 'w1')]);
    const second = kill('w2', 6_000);
    const tasks: TaskEvent[] = [
      { type: 'started', at: 700, identity: 'w1' },
      { type: 'completed', at: 750, identity: 'w1' },
      { type: 'scheduled', at: 3_700 },
      { type: 'started', at: 3_710, identity: 'w2' },
      { type: 'completed', at: 3_750, identity: 'w2' },
      { type: 'scheduled', at: 5_000 },
      { type: 'started', at: 5_010, identity: 'w3' },
      { type: 'completed', at: 5_050, identity: 'w3' },
    ];
    const starts = [call('c', '6', 7_000, 'w3')];
    expect(recoveryAfterKill(first, starts, [chain('c', tasks)], [first, second])).toBe(6_000);
  });
});
