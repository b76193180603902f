import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { failedWritesBetween, storeFailures } from '../../drill/serverStore';

const LOG = [
  'time=2026-11-30T08:49:09.500 level=INFO msg="history shard acquired" shard-id=1',
  'time=2026-11-30T08:49:10.031 level=ERROR msg="Update workflow execution operation failed." shard-id=1 wf-id=load-waiting-48 store-operation=update-wf-execution error="context canceled"',
  'time=2026-11-30T08:50:12.136 level=ERROR msg="Update workflow execution operation failed." shard-id=1 wf-id=load-waiting-9 store-operation=update-wf-execution error="context deadline exceeded"',
  'time=2026-11-30T08:51:00.000 level=ERROR msg="Unable to call matching.PollWorkflowTaskQueue" error="context canceled"',
].join('\n');

describe("the load drill's reading of its server's failed writes", () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-store-')), 'server.log');
  fs.writeFileSync(file, LOG);
  const failures = storeFailures(file);
  const at = (time: string) => new Date(time).getTime();

  it('takes the failed store operations the server logged, and nothing else', () => {
    expect(failures).toEqual([at('2026-11-30T08:49:10.031'), at('2026-11-30T08:50:12.136')]);
    expect(storeFailures(undefined)).toEqual([]);
    expect(storeFailures(path.join(path.dirname(file), 'absent.log'))).toEqual([]);
  });

  it('tells whether a task ran while the server failed a write, its ends included', () => {
    expect(failedWritesBetween(failures, at('2026-11-30T08:49:02.031'), at('2026-11-30T08:49:10.031'))).toBe(true);
    expect(failedWritesBetween(failures, at('2026-11-30T08:50:05.000'), at('2026-11-30T08:50:13.000'))).toBe(true);
    expect(failedWritesBetween(failures, at('2026-11-30T08:49:10.032'), at('2026-11-30T08:50:12.135'))).toBe(false);
    expect(failedWritesBetween(failures, at('2026-11-30T08:50:12.137'), at('2026-11-30T08:52:00.000'))).toBe(false);
    expect(failedWritesBetween([], 0, Date.now())).toBe(false);
  });
});
