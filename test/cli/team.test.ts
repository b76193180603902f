import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const v1 = 'test/version/fixtures/support-v1.ts';
const v2 = 'test/version/fixtures/support-v2.ts';

/** The real `baton` command, run to its end. */
function baton(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/baton.js'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' },
    timeout: 180_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('baton team', () => {
  it("shows a team module's version, its hash and its agents", () => {
    const { code, stdout } = baton('team', v1);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^support@v1\n {2}hash [0-9a-f]{64} \(label v1\)\n/);
    expect(stdout).toContain('  refunds: scripted/scripted-redeploy; tools issueRefund; handoffs (none)');
  }, 120_000);

  it('diffs two versions, given as modules or as a JSON snapshot', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-team-'));
    const snapshot = path.join(dir, 'v1.json');
    fs.writeFileSync(snapshot, baton('team', v1, '--json').stdout);
    {
      const { code, stdout } = baton('team', 'diff', snapshot, v2);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^support@v1 → support@v2: \d+ change\(s\)/);
      expect(stdout).toMatch(/agent_removed\s+agent "sales" removed/);
      expect(stdout).toMatch(/instructions_changed\s+instructions of "triage" changed/);
      expect(stdout).toMatch(/tool_renamed\s+tool "issueRefund" of "refunds" renamed to "refundOrder"/);
      expect(stdout).toMatch(
        /tool_schema_changed\s+parameters of tool "lookupOrder" of "triage" changed: \+region \(required\)/,
      );
    }
  }, 240_000);

  it('refuses what is not two versions, naming the problem (exit code 2)', () => {
    const notSnapshot = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-team-')), 'x.json');
    fs.writeFileSync(notSnapshot, '{"agents": 1}');
    const cases: [string[], RegExp][] = [
      [['team', 'diff', v1], /baton team diff takes exactly <a> and <b>/],
      [['team', 'diff', 'nope.ts', v2], /no such file: nope\.ts/],
      [
        ['team', 'diff', notSnapshot, v2],
        /is not a team snapshot \(baton team <module> --json writes one\): it needs "agents" and "approvals"/,
      ],
      [['worker', '--team', v1, '--deployment', 'support'], /--deployment and --build-id go together/],
    ];
    for (const [args, message] of cases) {
      const { code, stderr } = baton(...args);
      expect(stderr).toMatch(message);
      expect(code).toBe(2);
    }
  }, 240_000);
});
