/** `follow`: a run's progress from its history, as lines or on a terminal's live line. */
import { describe, expect, it } from 'vitest';
import { follow } from '../../src/cli/follow';
import { LiveLine } from '../../src/cli/print';
import type { PendingApproval } from '../../src/common/types';
import { MODEL_DELAY_MS, team as slowTeam, TOOL_DELAY_MS } from './fixtures/slow-team';
import { scriptedAgent } from '../helpers/agents';
import { Team } from '../../src';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { toolApprovalTeam } from '../server/team';

const server = useTemporalServer();

/** A terminal that records what is written to it. */
function fakeTerminal() {
  const writes: string[] = [];
  const stream = {
    isTTY: true,
    columns: 100,
    write: (chunk: string) => writes.push(chunk) > 0,
  } as unknown as NodeJS.WriteStream;
  return { stream, writes };
}

/** The longest elapsed time the live line showed for `label`, in seconds. */
function longestShown(writes: string[], label: string): number {
  const pattern = new RegExp(`${label}… (\\d+\\.\\d) s`, 'g');
  return Math.max(0, ...writes.flatMap((w) => [...w.matchAll(pattern)].map((m) => Number(m[1]))));
}

describe('follow', () => {
  it('prints a line per model and tool call, each handoff, then returns the result', async () => {
    await withWorker(server.env, slowTeam, async (baton) => {
      const lines: string[] = [];
      const result = await follow(await baton.start('triage', 'refund 1042'), (l) => lines.push(l));
      expect(result.output).toBe('Refunded order 1042.');
      expect(lines).toEqual([
        '  triage: model call',
        '  ↪ triage → refunds: Refund order 1042',
        '  refunds: model call',
        '  refunds: tool issueRefund',
        '  refunds: model call',
      ]);
    });
  });

  it('on a terminal, shows the call under way with its elapsed time on one line redrawn in place', async () => {
    await withWorker(server.env, slowTeam, async (baton) => {
      const terminal = fakeTerminal();
      const live = LiveLine.on(terminal.stream, 50)!;
      const lines: string[] = [];
      const print = (l: string) => {
        terminal.writes.push(`${l}\n`);
        lines.push(l);
      };
      await follow(await baton.start('triage', 'refund 1042'), print, { live });
      // Calls are on the live line only; handoffs are printed as lines.
      expect(lines).toEqual(['  ↪ triage → refunds: Refund order 1042']);
      expect(longestShown(terminal.writes, 'triage: model call')).toBeGreaterThanOrEqual((MODEL_DELAY_MS - 300) / 1000);
      expect(longestShown(terminal.writes, 'refunds: tool issueRefund')).toBeGreaterThanOrEqual(
        (TOOL_DELAY_MS - 300) / 1000,
      );
      // Each frame replaces the line before it, and the line is erased before a printed line and at the end.
      const frames = terminal.writes.filter((w) => w.startsWith('\r\x1b[2K') && w.length > 4);
      expect(frames.length).toBeGreaterThan(10);
      expect(frames.every((f) => !f.includes('\n'))).toBe(true);
      const handoffAt = terminal.writes.indexOf('  ↪ triage → refunds: Refund order 1042\n');
      expect(terminal.writes[handoffAt - 1]).toBe('\r\x1b[2K');
      expect(terminal.writes.at(-1)).toBe('\r\x1b[2K');
    });
  });

  it('without a prompter, says how to decide a waiting handoff, and prints a rejection', async () => {
    const team = new Team([
      scriptedAgent('triage', [
        { handoff: { to: 'refunds', message: 'Refund order 1042' } },
        { text: 'Refunds said no.' },
      ]),
      scriptedAgent('refunds', [], { approval: { approvers: ['alice'] } }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('triage', 'refund 1042');
      const lines: string[] = [];
      let decided: Promise<unknown> | undefined;
      const result = await follow(run, (l) => {
        lines.push(l);
        const waiting = /--id (\S+)/.exec(l);
        if (waiting) decided = baton.reject(run.workflowId, waiting[1], { approver: 'alice', reason: 'not this one' });
      });
      await decided;
      expect(result.output).toBe('Refunds said no.');
      expect(lines[1]).toMatch(
        /^ {2}⏸ triage → refunds waits for approval \(handoff \S+, approvers: alice\)\n {4}decide with: npx baton approve /,
      );
      expect(lines).toContain('  ✗ triage → refunds rejected by alice: not this one');
      expect(lines.filter((l) => l.includes('⏸'))).toHaveLength(1);
    });
  });

  it('shows a tool call waiting for approval with its arguments, and how to decide it with edited ones', async () => {
    await withWorker(server.env, toolApprovalTeam(), async (baton) => {
      const run = await baton.start('refunds', 'Refund order A1.');
      const lines: string[] = [];
      let decided: Promise<unknown> | undefined;
      const result = await follow(run, (l) => {
        lines.push(l);
        const waiting = /--id (\S+)/.exec(l);
        if (waiting)
          decided = baton.approve(run.workflowId, waiting[1], {
            approver: 'alice',
            arguments: { orderId: 'A1', amount: 200 },
          });
      });
      await decided;
      expect(result.output).toBe('Refund issued.');
      expect(lines[1]).toMatch(
        /^ {2}⏸ refunds → tool issueRefund \{"orderId":"A1","amount":250\} waits for approval \(tool call \S+, approvers: alice\)\n {4}decide with: npx baton approve \S+ --id \S+ --as <you> \[--args '<json object of fields to change>'\]/,
      );
      expect(lines).toContain('  refunds: tool issueRefund');
    });
  });

  it('prints what a control did, here the handoffs budget running out, before the typed error', async () => {
    const team = new Team([
      scriptedAgent('triage', [{ handoff: { to: 'refunds', message: 'Refund order 1042' } }]),
      scriptedAgent('refunds', [{ text: 'Refunded.' }]),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const lines: string[] = [];
      const failure = await follow(await baton.start('triage', 'refund 1042', { maxHandoffs: 0 }), (l) =>
        lines.push(l),
      ).catch((e: unknown) => e);
      expect((failure as Error).name).toBe('MaxHandoffsExceededError');
      expect(lines).toEqual(['  triage: model call', '  ⚠ budget: handoffs 1 of 0 used (triage) → the run fails']);
    });
  });

  it('hands each waiting handoff to the prompter once, and shows the approval in the handoff line', async () => {
    const team = new Team([
      scriptedAgent('triage', [{ handoff: { to: 'refunds', message: 'Refund order 1042' } }]),
      scriptedAgent('refunds', [{ text: 'Refunded.' }], { approval: { approvers: ['alice'] } }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const asked: PendingApproval[] = [];
      const lines: string[] = [];
      const result = await follow(await baton.start('triage', 'refund 1042'), (l) => lines.push(l), {
        onPending: async (run, p) => {
          asked.push(p);
          await baton.approve(run.workflowId, p.handoffId, { approver: 'alice' });
        },
      });
      expect(result.output).toBe('Refunded.');
      expect(asked).toHaveLength(1);
      expect(lines).toContain('  ↪ triage → refunds [approved by alice]: Refund order 1042');
    });
  });
});
