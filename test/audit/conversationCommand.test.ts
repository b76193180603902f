/**
 * `baton audit <id>` for a conversation, on a real server: the conversation's turns (its messages,
 * handoffs and answers), its audit document with --json, its export (verified), and a clear refusal
 * of --mermaid, which takes a chain.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Team } from '../../src';
import { auditCommand } from '../../src/cli/audit';
import { UsageError } from '../../src/cli/args';
import { scriptedAgent as agent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();

/** `baton audit …` run in this process: its exit code and what it printed. */
async function audit(args: string[]): Promise<{ code: number; out: string }> {
  process.env.TEMPORAL_ADDRESS = server.env.address;
  const lines: string[] = [];
  const code = await auditCommand.run(args, {
    out: (l) => lines.push(l),
    err: (l) => lines.push(l),
    interrupted: new Promise(() => undefined),
  });
  return { code, out: lines.join('\n') };
}

describe('baton audit of a conversation', () => {
  it('prints its turns, gives its audit document with --json, writes and verifies its export, and refuses --mermaid with what to use', async () => {
    const team = new Team([
      agent('triage', [{ handoff: { to: 'refunds', message: 'refund order 42' } }]),
      agent('refunds', [{ text: 'Refunded order 42.' }, { text: 'You are welcome.' }]),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const chat = baton.conversation('triage');
      const file = path.join(os.tmpdir(), `conversation-export-${randomUUID()}.json`);
      await chat.send('I want a refund for order 42');
      await chat.send('Thanks');

      const timeline = await audit([chat.id]);
      expect(timeline.code).toBe(0);
      expect(timeline.out.split('\n')).toEqual([
        `conversation ${chat.id}: running, 2 turns, 1 run`,
        expect.stringMatching(/^#1 {2}\S+ {2}you → triage: I want a refund for order 42$/),
        '      handoff    #1 triage → refunds: refund order 42',
        '      refunds: Refunded order 42.',
        expect.stringMatching(/^#2 {2}\S+ {2}you → refunds: Thanks$/),
        '      refunds: You are welcome.',
      ]);

      const json = await audit([chat.id, '--json']);
      expect(JSON.parse(json.out)).toMatchObject({
        schema: 'baton.conversation-audit/v1',
        workflowId: chat.id,
        turns: [
          { turn: 1, answeredBy: 'refunds' },
          { turn: 2, output: 'You are welcome.' },
        ],
      });

      await expect(audit([chat.id, '--mermaid'])).rejects.toThrow(UsageError);
      await expect(audit([chat.id, '--mermaid'])).rejects.toThrow(
        `${chat.id} is a conversation: --mermaid takes a chain`,
      );
      await expect(audit([chat.id, '--export', file])).rejects.toThrow("no key to sign the export's head");

      // Its export is its history's, as the archive keeps it, and verifies.
      const exported = await audit([chat.id, '--export', file, '--unsigned']);
      expect(exported.code).toBe(0);
      expect(exported.out).toMatch(new RegExp(`^exported \\d+ events of ${chat.id} to `));
      const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as {
        workflowId: string;
        events: { event: { kind: string } }[];
      };
      expect(doc.workflowId).toBe(chat.id);
      expect(doc.events.filter((e) => e.event.kind === 'handoff')).toHaveLength(1);
      const checked = await audit(['--verify', file, '--accept-untrusted-head']);
      expect(checked.code).toBe(0);
      expect(checked.out).toContain('verified');
    });
  });
});
