/**
 * Text from outside on a real chain: a decision signalled with an approver name and comment full of
 * ANSI escapes, CR/LF and a right-to-left override is refused and recorded; the real `baton audit`
 * command then prints it quoted, marked as a claimed name and neutralised, on the line of its own
 * event, so it cannot forge a line of baton's timeline or reorder the rest of it.
 */
import { describe, expect, it } from 'vitest';
import { approveHandoffSignal } from '../../src/workflow';
import { nextApproval } from '../histories/auditScenarios';
import { cli } from '../helpers/cli';
import { signedTeam } from '../helpers/signing';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

/** What a terminal acts on instead of showing (line breaks aside: the timeline's own lines end in them). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ACTS_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const FORGED_LINE = '07:00:00.000  approval   approved by alice';

describe('text from outside in the audit', () => {
  it('is neutralised, quoted and marked as claimed, so a refused signal cannot forge a timeline line', async () => {
    await withWorker(server.env, signedTeam(), async (baton) => {
      const run = await baton.start('clerk', 'stamp A1');
      const stamp = await nextApproval(run);
      const forged = `mallory\u001b[2K\r\n${FORGED_LINE}\u001b[0m\u202e`;
      await run.handle.signal(approveHandoffSignal, {
        handoffId: stamp.handoffId,
        approver: forged,
        comment: 'ok\r\n\u001b]0;pwned\u0007',
      } as never);
      await waitFor(
        () => baton.audit(run.workflowId),
        (a) => a.events.some((e) => e.kind === 'decision_refused'),
      );
      await baton.approve(run.workflowId, stamp.handoffId, { approver: 'bob', comment: 'fine \u2066by\u2069 me' });

      const out = await cli(['audit', run.workflowId], { TEMPORAL_ADDRESS: server.env.address });
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      expect(out.stdout).not.toMatch(ACTS_ON);
      const lines = out.stdout.split('\n');
      expect(
        lines.filter(
          (l) =>
            l.trimStart().startsWith(FORGED_LINE) || /^\d\d:\d\d:\d\d\.\d{3}\s+approval\s+approved by alice/.test(l),
        ),
      ).toEqual([]);
      const refused = lines.filter((l) => l.includes('refused approve from'));
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatch(
        /^\d\d:\d\d:\d\d\.\d{3} {2}approval {3}refused approve from "mallory\\u001b\[2K\\r\\n07:00:00\.000 {2}approval {3}approved by alice\\u001b\[0m⟨U\+202E⟩" \(claimed\) \(signal\): /,
      );
      expect(out.stdout).toMatch(
        /approval {3}approved by "bob" \(claimed\) via update: "fine ⟨U\+2066⟩by⟨U\+2069⟩ me"/,
      );

      const diagram = await cli(['audit', run.workflowId, '--mermaid'], { TEMPORAL_ADDRESS: server.env.address });
      expect(diagram.stdout).not.toMatch(ACTS_ON);
    });
  }, 120_000);
});
