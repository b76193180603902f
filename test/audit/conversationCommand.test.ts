/**
 * `baton audit <id>` for a conversation, on a real server: the conversation's turns (its messages,
 * handoffs and answers), its audit document with --json, and a clear refusal of the options that
 * take a chain.
 */
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
  const code = await auditCommand.run(args, { out: (l) => lines.push(l), err: (l) => lines.push(l), interrupted: new Promise(() => undefined) });
  return { code, out: lines.join('\n') };
}

describe('baton audit of a conversation', () => {
  it.skip('prints its turns, gives its audit document with --json, and refuses --mermaid and --export with what to use', async () => {
    const team = new Team([
      agent('triage', [{ handoff: { to: 'refunds', message: 'refund order 42' } }]),
      agent('refunds', [{ text: 'Refunded order 42.' }, { text: 'You are welcome.' }]),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const chat = baton.conversation('triage');
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
      expect(JSON.parse(json.out)).toMatchObject({ schema: 'baton.conversation-audit/v1', workflowId: chat.id, turns: [{ turn: 1, answeredBy: 'refunds' }, { turn: 2, output: 'You are welcome.' }] });

      for (const option of [['--mermaid'], ['--export', '/tmp/never-written.json']]) {
        await expect(audit([chat.id, ...option])).rejects.toThrow(UsageError);
        await expect(audit([chat.id, ...option])).rejects.toThrow(`${chat.id} is a conversation: --mermaid and --export take a chain`);
      }
    });
  });
});
