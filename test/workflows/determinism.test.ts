import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { WORKFLOWS_PATH } from '../../src/worker';
import { checkHistories, historiesFromFiles } from '../../src/worker/determinism';

const dir = path.resolve(__dirname, '../histories');
// Histories recorded by earlier versions of the workflow code stay, in folders named for the change after them.
const files = fs
  .readdirSync(dir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.json'))
  .map((f) => path.join(dir, f));

describe('determinism of recorded histories', () => {
  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(20);
  });

  it('replays every recorded history against the current workflow code', async () => {
    const results = await checkHistories(historiesFromFiles(files));
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results).toHaveLength(files.length);
  });

  it("keeps each run's patch decisions its own while runs with and without the patch baseline alternate on one worker, which shares baton's modules between them", async () => {
    const baseline = files.filter((f) => path.basename(f).startsWith('baseline-'));
    const older = files.filter((f) => path.relative(dir, f).startsWith('before-'));
    const alternating = baseline.flatMap((f, i) => [older[i % older.length]!, f, older[(i + 1) % older.length]!]);
    expect(baseline.length).toBeGreaterThan(0);
    const results = await checkHistories(historiesFromFiles(alternating));
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results).toHaveLength(alternating.length);
  });

  it('catches a change that would break running chains', async () => {
    const bundle = await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      workflowInterceptorModules: [path.join(dir, 'nondeterministic.ts')],
      logger: new DefaultLogger('WARN'),
    });
    const results = await checkHistories(historiesFromFiles(files), { workflowBundle: bundle });
    expect(results.map((r) => r.nondeterministic)).toEqual(files.map(() => true));
  });
});
