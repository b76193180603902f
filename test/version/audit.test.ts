import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { describe, expect, it } from 'vitest';
import { buildConversationAudit, formatConversation } from '../../src/audit';
import { formatTimeline } from '../../src/audit/format';
import { formatPending } from '../../src/cli/print';
import { auditOf, eventsOf } from '../audit/recorded';

const conversationRuns = (name: string, runs: number) =>
  Array.from({ length: runs }, (_, i) => ({
    runId: `run-${i + 1}`,
    events:
      historyFromJSON(
        JSON.parse(
          fs.readFileSync(path.join(__dirname, '../conversation/histories', `${name}.run${i + 1}.json`), 'utf8'),
        ),
      ).events ?? [],
  }));

describe('team versions on the record, read from recorded histories', () => {
  it('a stranded chain: its snapshot names v1, it fails with TeamMismatchError, and the migration names v1 → v2 and asks nobody again', () => {
    const stranded = auditOf('versions/team-mismatch-renamed-tool.run1.json');
    expect(eventsOf(stranded, 'team_snapshot')[0]).toMatchObject({ team: 'support@v1' });
    expect(stranded.failure).toMatchObject({ type: 'TeamMismatchError' });
    expect(stranded.failure!.message).toContain('tool "issueRefund" of agent "refunds"');
    expect(eventsOf(stranded, 'approval_requested')).toHaveLength(1);

    const migrated = auditOf('versions/team-mismatch-renamed-tool.run2.json');
    expect(eventsOf(migrated, 'team_changed')).toEqual([
      expect.objectContaining({ from: 'support@v1', to: 'support@v2', by: 'migration' }),
    ]);
    expect(eventsOf(migrated, 'team_snapshot')[0]).toMatchObject({ team: 'support@v2' });
    expect(eventsOf(migrated, 'approval_requested')).toEqual([]);
    expect(eventsOf(migrated, 'tool_call').map((c) => c.tool)).toContain('refundOrder');
    expect(migrated.result?.output).toBe('Refunded 250 on A1 (refunds v2)');
    expect(formatTimeline(migrated)).toMatch(/support@v1 → support@v2 before turn \d+ \(migrated on replay\)/);
  });

  it('a handoff to an agent v2 removed is answered as unavailable after the migration, and the agent who made it answers', () => {
    const migrated = auditOf('versions/team-mismatch-removed-agent.run2.json');
    expect(migrated.result).toMatchObject({
      finalAgent: 'triage',
      output: 'Quote: 3 seats for 90 (triage v2, sales is gone)',
    });
    expect(eventsOf(migrated, 'approval_requested')).toEqual([]);
  });

  it('a conversation that moved to the current deployment version between turns says so', () => {
    const audit = buildConversationAudit('recorded', conversationRuns('conversation-upgrade', 2));
    expect(audit.teamChanges).toEqual([
      expect.objectContaining({ from: 'support@v1', to: 'support@v2', beforeTurn: 2, agent: 'triage' }),
    ]);
    expect(audit.turns.map((t) => t.output)).toEqual(['Hello (triage v1)', 'Hello again (triage v2)']);
    expect(formatConversation(audit)).toMatch(
      /⇄ team support@v1 → support@v2 before turn 2 \(on support-record\.v2\)\n#2 /,
    );
  });

  it('baton pending shows the team a waiting approval belongs to', () => {
    const p = {
      workflowId: 'wf-1',
      runId: 'r',
      handoffId: 'h1',
      approvalId: 'h1',
      from: 'triage',
      to: 'refunds',
      message: 'refund',
      requestedAt: '',
      onTimeout: 'reject' as const,
      ageMs: 4000,
      team: 'support@v1',
    };
    expect(formatPending(p)).toBe('wf-1  h1  triage → refunds  waiting 4s  team support@v1\n    "refund"');
  });
});
