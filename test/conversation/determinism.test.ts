import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkHistories, historiesFromFiles } from '../../src/worker/determinism';

const dir = path.join(__dirname, 'histories');
// Conversations recorded by earlier versions stay, in folders named for the change after them.
const files = fs
  .readdirSync(dir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.json'))
  .map((f) => path.join(dir, f));

describe('determinism of recorded conversations', () => {
  it('replays every run of the recorded conversation (approval, compaction, continue-as-new, end) against the current code', async () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
    const results = await checkHistories(historiesFromFiles(files));
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results).toHaveLength(files.length);
  });
});
