/**
 * The real `baton` command and what waits for approval: the questions on a terminal, --json,
 * `baton pending`, `baton approve` with edited arguments, and `baton audit`.
 */
import { describe, expect, it } from 'vitest';
import { team as supportTeam } from '../../examples/support/team';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { useCliSession } from '../helpers/cliSession';
import { toolApprovalTeam } from '../server/team';
import { slowTeam, startCli } from './command';
import { listedApproval, runOnTerminal, withoutEscapes } from './approvals.fixtures';

const server = useTemporalServer();
/** `pending`, `approve`, `reject` and `audit`, which only talk to the server: in one process for the file. */
const session = useCliSession();
const cli = session.cli.bind(session);
/** How long the first question may take: the command starts a worker of its own (it bundles the workflows) first, slow on a busy machine. */
const STARTED_MS = 60_000;

describe('the baton command: approvals and the audit', () => {
  it('on a terminal, asks about a waiting handoff with the live line out of the way', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address, BATON_TEST_APPROVAL: '1' };
    const p = runOnTerminal({ agent: 'triage', input: 'refund 1042', team: slowTeam, taskQueue: 'cli-slow-ask' }, env);
    await p.until('stdout', /approve it\? \[y\]es \/ \[n\]o \/ anything else leaves it waiting: /, STARTED_MS);
    p.child.stdin.write('y\r');
    await p.until('stdout', /your name: /);
    p.child.stdin.write('alice\r');
    await p.until('stdout', /answer from refunds/);
    p.child.stdin.end();
    expect(await p.exited).toBe(0);
    // Between the waiting handoff and its decision only the question and the answers are on the terminal.
    const asking =
      /⏸ triage → refunds waits for approval \(handoff \S+, approvers: alice\)([\s\S]*?) {4}approved by alice/.exec(
        p.output.stdout,
      );
    expect(asking).not.toBeNull();
    const between = withoutEscapes(asking![1]!);
    expect(between).toMatch(/approve it\? [^\n]*waiting: y\s+your name: alice\s+$/);
    expect(between).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    expect(p.output.stdout).toContain('↪ triage → refunds [approved by alice]: Refund order 1042');
  }, 120_000);

  it('on a terminal, asks a rejection for its reason, which the agent gets, instead of taking what is typed next as another answer', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address, BATON_TEST_APPROVAL: '1' };
    const p = runOnTerminal(
      { agent: 'triage', input: 'refund 1042', team: slowTeam, taskQueue: 'cli-slow-reject' },
      env,
    );
    await p.until('stdout', /approve it\? \[y\]es \/ \[n\]o \/ anything else leaves it waiting: /, STARTED_MS);
    p.child.stdin.write('n\r');
    await p.until('stdout', /your name: /);
    p.child.stdin.write('alice\r');
    await p.until('stdout', /why\? \(the agent is told; Enter for no reason\): /);
    p.child.stdin.write('order 1042 was refunded last week\r');
    await p.until('stdout', /rejected by alice: order 1042 was refunded last week/);
    p.child.stdin.end();
    await p.exited;
    expect(p.output.stdout).toContain('✗ triage → refunds rejected by alice: order 1042 was refunded last week');
  }, 120_000);

  it('on a terminal, shows a waiting tool call with its arguments, asks again after a refused decision and for a name until one is given, and lets the approver change fields of the arguments', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    const p = runOnTerminal(
      {
        agent: 'refunds',
        input: 'Refund order A1.',
        team: 'test/cli/fixtures/tool-approval-team.ts',
        taskQueue: 'cli-tool-ask',
      },
      env,
    );
    const question = /approve it\? \[y\]es \/ \[n\]o \/ \[e\]dit the arguments \/ anything else leaves it waiting: /g;
    const count = (pattern: RegExp) => () => Promise.resolve([...p.output.stdout.matchAll(pattern)].length);
    await p.until(
      'stdout',
      /⏸ refunds → tool issueRefund \{"orderId":"A1","amount":250\} waits for approval \(tool call \S+, approvers: alice\)/,
      STARTED_MS,
    );
    await p.until('stdout', question);
    // A name the policy refuses: the refusal is shown and the question comes back.
    p.child.stdin.write('y\r');
    await p.until('stdout', /your name: /);
    p.child.stdin.write('bob\r');
    await p.until(
      'stdout',
      /ApprovalRefusedError: .*bob may not decide this tool call[\s\S]*it still waits: decide again/,
    );
    await waitFor(count(question), (n) => n === 2, 10_000);
    p.child.stdin.write('e\r');
    await p.until(
      'stdout',
      /fields to change \(a JSON object merged onto the model's arguments; now \{"orderId":"A1","amount":250\}\): /,
    );
    p.child.stdin.write('{"amount":200}\r');
    await waitFor(count(/your name: /g), (n) => n === 2, 10_000);
    // An empty name is asked again, never recorded under a default.
    p.child.stdin.write('\r');
    await p.until('stdout', /a decision is recorded under the name of who made it: type yours/);
    p.child.stdin.write('alice\r');
    await p.until('stdout', /answer from refunds/);
    p.child.stdin.end();
    expect(await p.exited).toBe(0);
    expect(p.output.stdout).toContain('approved by alice with edited arguments {"orderId":"A1","amount":200}');
    expect(p.output.stdout).not.toMatch(/(approved|rejected) by (cli|root|bob)/);
  }, 120_000);

  it('on a terminal, keys typed while no question is asked do not answer the next one', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    const p = runOnTerminal(
      {
        agent: 'refunds',
        input: 'Refund orders A1 and A2.',
        team: 'test/cli/fixtures/two-approvals-team.ts',
        taskQueue: 'cli-typed-ahead',
      },
      env,
    );
    await p.until('stdout', /approve it\? /, STARTED_MS);
    p.child.stdin.write('y\r');
    await p.until('stdout', /your name: /);
    p.child.stdin.write('alice\r');
    await p.until('stdout', /approved by alice/);
    // The model is still thinking (BETWEEN_MS): what is typed now goes nowhere.
    p.child.stdin.write('y\rmallory\r');
    await p.until('stdout', /A2[\s\S]*approve it\? /, 10_000);
    await p.until('stdout', /keys typed before this question are ignored/);
    p.child.stdin.write('n\r');
    await waitFor(
      async () => [...p.output.stdout.matchAll(/your name: /g)].length,
      (n) => n === 2,
      10_000,
    );
    p.child.stdin.write('alice\r');
    await p.until('stdout', /why\? /);
    p.child.stdin.write('\r');
    await p.until('stdout', /answer from refunds/);
    p.child.stdin.end();
    expect(await p.exited).toBe(0);
    expect(p.output.stdout).toMatch(/rejected by alice/);
    // The terminal echoes what was typed ahead; it decided nothing.
    expect(p.output.stdout).not.toMatch(/(approved|rejected) by mallory/);
  }, 120_000);

  it('with --json, says on stderr how to decide a waiting approval; the first SIGINT stops it and its worker', async () => {
    const p = startCli(
      [
        'run',
        'triage',
        'I want a refund for order 1042',
        '--team',
        'examples/support/team.ts',
        '--json',
        '--task-queue',
        taskQueue(),
      ],
      {
        TEMPORAL_ADDRESS: server.env.address,
      },
    );
    const [, workflowId, handoffId] = await p.until(
      'stderr',
      /decide with: npx baton approve (\S+) --id (\S+) --as <you>/,
      STARTED_MS,
    );
    expect(p.output.stdout).toBe('');
    expect(p.output.stderr).toContain(`⏸ triage → refunds waits for approval (handoff ${handoffId})`);

    const signalledAt = Date.now();
    p.child.kill('SIGINT');
    expect(await p.exited).toBe(130);
    expect(Date.now() - signalledAt).toBeLessThan(4_000);
    expect(p.output.stderr).toContain(
      `stopped: chain ${workflowId} stays in Temporal and goes on when a worker polls task queue`,
    );
    expect(p.output.stdout).toBe('');
    const handle = server.env.client.workflow.getHandle(workflowId!);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.terminate('test done');
  }, 120_000);

  it('lists, approves and audits a waiting handoff', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    await withWorker(server.env, supportTeam, async (baton) => {
      const run = await baton.start('triage', 'I want a refund for order 1042');
      const waiting = await listedApproval(baton, run);

      const list = await cli(['pending'], env);
      expect(list.code).toBe(0);
      expect(list.stdout).toContain(`${run.workflowId}  ${waiting.handoffId}  triage → refunds  waiting`);

      const refused = await cli(['approve', run.workflowId, '--handoff', 'nope', '--as', 'alice'], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        'ApprovalRefusedError: Decision on approval nope refused: no handoff nope is waiting for approval',
      );
      expect((await cli(['approve', run.workflowId], env)).stderr).toContain('--as <approver> is required');

      const approved = await cli(['approve', run.workflowId, '--as', 'alice', '--comment', 'looks right'], env);
      expect(approved.stdout).toContain(`handoff ${waiting.handoffId} approved by alice`);
      await run.result();

      const timeline = await cli(['audit', run.workflowId], env);
      expect(timeline.stdout).toContain(`chain ${run.workflowId}: completed`);
      expect(timeline.stdout).toMatch(/approval +approved by "alice" \(claimed\) via update: "looks right"/);
      expect(timeline.stdout).toMatch(/refunds +tool issueRefund/);
      const mermaid = await cli(['audit', run.workflowId, '--mermaid'], env);
      expect(mermaid.stdout).toContain('triage -->|"1 · approved by alice"| refunds');
      const json = JSON.parse((await cli(['audit', run.workflowId, '--json'], env)).stdout);
      expect(json).toMatchObject({
        schema: 'baton.audit/v1',
        status: 'completed',
        handoffs: [{ from: 'triage', to: 'refunds' }],
      });
    });
  }, 120_000);

  it('lists a tool call waiting for approval with its arguments, refuses --args that are not a JSON object or that its parameters refuse, and approves it with edited arguments', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    await withWorker(server.env, toolApprovalTeam(), async (baton) => {
      const run = await baton.start('refunds', 'Refund order A1.');
      const waiting = await listedApproval(baton, run);

      const list = await cli(['pending'], env);
      expect(list.code).toBe(0);
      expect(list.stdout).toContain(
        `${run.workflowId}  ${waiting.handoffId}  refunds → tool issueRefund {"orderId":"A1","amount":250}  waiting`,
      );
      const listed = (JSON.parse((await cli(['pending', '--json'], env)).stdout) as { workflowId: string }[]).find(
        (p) => p.workflowId === run.workflowId,
      );
      // Addressed by approvalId (handoffId stays), the arguments an object as decisions take them.
      expect(listed).toMatchObject({
        approvalId: waiting.handoffId,
        handoffId: waiting.handoffId,
        tool: { arguments: { orderId: 'A1', amount: 250 }, argumentsText: '{"orderId":"A1","amount":250}' },
      });

      // Command lines refused before anything is sent, run side by side.
      const notObjects = [
        ['{amount: 200}', 'got text that is not JSON'],
        ['[200]', 'got a list'],
        ['200', 'got a number'],
      ] as const;
      const [rejectWithArgs, twoIds, ...refusals] = await Promise.all([
        cli(['reject', run.workflowId, '--as', 'alice', '--args', '{}'], env),
        cli(['approve', run.workflowId, '--id', waiting.handoffId, '--handoff', 'another', '--as', 'alice'], env),
        ...notObjects.map(([args]) => cli(['approve', run.workflowId, '--as', 'alice', '--args', args], env)),
      ]);
      notObjects.forEach(([args, got], i) => {
        expect(refusals[i]!.code, args).toBe(2);
        expect(refusals[i]!.stderr).toContain(
          `--args must be a JSON object of the tool's arguments, e.g. {"orderId":"A1"}; ${got}`,
        );
      });
      expect(rejectWithArgs!.code).toBe(2);
      expect([twoIds!.code, twoIds!.stderr]).toEqual([
        2,
        expect.stringContaining(`--id ${waiting.handoffId} and --handoff another name different approvals: give one`),
      ]);
      const mismatched = await cli(
        ['approve', run.workflowId, '--as', 'alice', '--args', '{"orderId":"A1","amount":"lots"}'],
        env,
      );
      expect(mismatched.code).toBe(1);
      expect(mismatched.stderr).toContain(
        `baton approve: ApprovalRefusedError: Decision on approval ${waiting.handoffId} refused: the edited arguments do not match the parameters of issueRefund: $.amount must be number, got string "lots"`,
      );
      expect(await run.pendingApprovals()).toHaveLength(1);

      // As `baton approve --help` shows it: only the fields to change, merged onto the model's.
      const approved = await cli(
        ['approve', run.workflowId, '--id', waiting.handoffId, '--as', 'alice', '--args', '{"amount":200}'],
        env,
      );
      expect(approved.stderr).toBe('');
      expect(approved.code).toBe(0);
      expect(approved.stdout).toContain(
        `tool call ${waiting.handoffId} (issueRefund) approved by alice with edited arguments {"orderId":"A1","amount":200} (changed amount; orderId as the model gave it)`,
      );
      expect((await run.result()).output).toBe('Refund issued.');
      const timeline = await cli(['audit', run.workflowId], env);
      expect(timeline.stdout).toMatch(
        /approval +approved by "alice" \(claimed\) with edited arguments \{"orderId":"A1","amount":200\} via update/,
      );
      expect(timeline.stdout).toMatch(
        /refunds +tool issueRefund\(\{"orderId":"A1","amount":200\}\) → \{"orderId":"A1","refunded":200\}/,
      );
    });
  }, 120_000);
});
