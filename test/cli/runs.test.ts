/**
 * The real `baton` command running chains: its output on a terminal and off one, --json, input
 * from stdin or a file, following and leaving a chain, replay, and the demo.
 */
import { describe, expect, it } from 'vitest';
import { team as researchTeam } from '../../examples/research/team';
import { workflowPollers } from '../../src/cli/pollers';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { cli, research, slowTeam, startCli, tempFile } from './command';
import { MODEL_DELAY_MS, TOOL_DELAY_MS } from './fixtures/slow-team';

const server = useTemporalServer();

describe('the baton command: runs', () => {
  it('runs a chain with --team and prints each handoff, then the answer', async () => {
    const out = await cli(['run', 'researcher', 'Write about quantum', ...research, '--task-queue', 'cli-text'], {
      TEMPORAL_ADDRESS: server.env.address,
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/chain baton-researcher-\S+ started at researcher/);
    expect(out.stdout).toContain('↪ researcher → writer: Write a short paragraph');
    expect(out.stdout).toMatch(/answer from writer:\n {2}Quantum computers store information in qubits/);
    expect(out.stdout).toContain('chain: researcher → writer (1 handoff)');
    expect(out.stderr).toBe('');
  });

  it('prints a line for each model and tool call when stdout is not a terminal', async () => {
    const out = await cli(['run', 'triage', 'refund 1042', '--team', slowTeam, '--task-queue', 'cli-slow-lines'], {
      TEMPORAL_ADDRESS: server.env.address,
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /started at triage\n {2}triage: model call\n {2}↪ triage → refunds: Refund order 1042\n {2}refunds: model call\n {2}refunds: tool issueRefund\n {2}refunds: model call\nanswer from refunds:/,
    );
    expect(out.stdout).not.toContain('\r');
    expect(out.stderr).toBe('');
  });

  it('on a terminal, shows what each agent is doing on one line redrawn in place, with the time so far', async () => {
    const p = startCli(
      ['run', 'triage', 'refund 1042', '--team', slowTeam, '--task-queue', 'cli-slow-tty'],
      { TEMPORAL_ADDRESS: server.env.address },
      undefined,
      { terminal: true },
    );
    p.child.stdin.end();
    expect(await p.exited).toBe(0);
    const output = p.output.stdout;
    const shown = (label: string) =>
      [...output.matchAll(new RegExp(`\\r\\x1b\\[2K. ${label}… (\\d+\\.\\d) s`, 'g'))].map((m) => Number(m[1]));
    expect(Math.max(...shown('triage: model call'))).toBeGreaterThanOrEqual((MODEL_DELAY_MS - 300) / 1000);
    expect(Math.max(...shown('refunds: tool issueRefund'))).toBeGreaterThanOrEqual((TOOL_DELAY_MS - 300) / 1000);
    // The live line is erased before each printed line, so what stays reads as it does elsewhere.
    expect(output).toContain('\r\x1b[2K  ↪ triage → refunds: Refund order 1042\r\n');
    expect(output).toContain('\r\x1b[2Kanswer from refunds:\r\n  Refunded order 1042.');
    expect(output).not.toMatch(/^ {2}(triage|refunds): (model call|tool)/m);
  });

  it('prints only the result object on stdout with --json', async () => {
    const out = await cli(
      [
        'run',
        'researcher',
        'quantum',
        ...research,
        '--json',
        '--max-handoffs',
        '3',
        '--task-queue',
        'cli-json',
        '--priority',
        '2',
        '--fairness-key',
        'cli',
      ],
      {
        TEMPORAL_ADDRESS: server.env.address,
      },
    );
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout);
    // The chain ran at the priority asked for, its workflow tasks included.
    const id = /chain (baton-researcher-\S+) started/.exec(out.stderr)![1]!;
    expect(
      (await server.env.client.workflow.getHandle(id).describe()).raw.workflowExecutionInfo?.priority,
    ).toMatchObject({ priorityKey: 2, fairnessKey: 'cli' });
    expect(result).toMatchObject({ finalAgent: 'writer', handoffChain: [{ from: 'researcher', to: 'writer' }] });
    // The researcher's specialists are counted in the chain's usage, and each agent's in usageByAgent.
    const byAgent = result.usageByAgent as Record<string, { modelCalls: number }>;
    expect(Object.keys(byAgent).sort()).toEqual(['engineering', 'physics', 'researcher', 'writer']);
    expect(result.usage.modelCalls).toBe(Object.values(byAgent).reduce((n, u) => n + u.modelCalls, 0));
    expect(out.stderr).toMatch(/chain baton-researcher-\S+ started at researcher/);
  });

  it('takes its input from stdin or a file, beyond what a command line holds', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    // Linux refuses a single argument over 128 KB; a chain takes inputs up to 256 KB (LIMITS.messageBytes).
    const input = `Tell me about quantum.\n${'notes '.repeat(35_000)}`;
    const file = tempFile('request.txt', input);
    const [piped, fromFile] = await Promise.all([
      cli(
        ['run', 'researcher', '-', ...research, '--json', '--task-queue', 'cli-stdin', '--workflow-id', 'cli-stdin'],
        env,
        input,
      ),
      cli(
        [
          'run',
          'researcher',
          '--input-file',
          file,
          ...research,
          '--json',
          '--task-queue',
          'cli-file',
          '--workflow-id',
          'cli-file',
        ],
        env,
      ),
    ]);
    expect(piped.code).toBe(0);
    expect(fromFile.code).toBe(0);
    expect(JSON.parse(piped.stdout)).toMatchObject({ finalAgent: 'writer' });
    // The audit document is larger than a pipe holds: the command writes all of it before exiting.
    for (const id of ['cli-stdin', 'cli-file']) {
      const audit = await cli(['audit', id, '--json'], env);
      expect(audit.stdout.length).toBeGreaterThan(input.length);
      expect(JSON.parse(audit.stdout).input).toMatchObject({ agent: 'researcher', input });
    }
  });

  it('says within seconds when no worker polls the task queue, and stops at the first Ctrl-C', async () => {
    const queue = taskQueue();
    const startedAt = Date.now();
    const p = startCli(['run', 'researcher', 'quantum', '--task-queue', queue], {
      TEMPORAL_ADDRESS: server.env.address,
    });
    const [, workflowId] = await p.until('stdout', /chain (\S+) started at researcher/);
    await p.until(
      'stderr',
      new RegExp(`no worker is polling task queue "${queue}", so chain ${workflowId} waits`),
      15_000,
    );
    expect(Date.now() - startedAt).toBeLessThan(15_000);
    expect(p.output.stderr).toContain(`npx baton worker --team <module> --task-queue ${queue}`);
    expect(p.output.stderr).toContain('or pass --team <module>');

    const signalledAt = Date.now();
    p.child.kill('SIGINT');
    expect(await p.exited).toBe(130);
    expect(Date.now() - signalledAt).toBeLessThan(4_000);
    expect(p.output.stderr).toContain(`stopped following chain ${workflowId}; it goes on in Temporal`);
    const handle = server.env.client.workflow.getHandle(workflowId!);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.terminate('test done');
  });

  it('counts the workers polling a task queue', async () => {
    expect(await workflowPollers(server.env.client, taskQueue())).toBe(0);
    await withWorker(server.env, researchTeam, async (_baton, queue) => {
      await waitFor(
        () => workflowPollers(server.env.client, queue),
        (n) => n > 0,
      );
    });
  });

  it('replays a failed chain with a raised limit, and checks histories for determinism', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    const workflowId = `cli-replay-${Date.now()}`;
    const team = [...research, '--task-queue', 'cli-replay'];
    const failed = await cli(
      ['run', 'researcher', 'quantum', '--max-handoffs', '0', '--workflow-id', workflowId, ...team],
      env,
    );
    expect(failed.code).toBe(1);
    const replayed = await cli(['replay', workflowId, '--max-handoffs', '3', ...team], env);
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toMatch(
      new RegExp(`chain ${workflowId} continues from last step in run \\S+ \\(resume of run \\S+\\)`),
    );
    expect(replayed.stdout).toContain('↪ researcher → writer');
    expect(replayed.stdout).toMatch(/answer from writer:\n {2}Quantum computers/);

    const checked = await cli(['replay', '--check', 'test/histories/two-agent-handoff.json', workflowId], env);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain('ok    test/histories/two-agent-handoff.json');
    expect(checked.stdout).toContain(`ok    ${workflowId}`);
  }, 240_000);

  it('names the model and the server the demo runs on', async () => {
    const url = 'http://127.0.0.1:8000/v1';
    const p = startCli(['demo'], {
      TEMPORAL_ADDRESS: server.env.address,
      OPENAI_API_KEY: 'local',
      OPENAI_BASE_URL: url,
      BATON_MODEL: 'smollm2-135m',
    });
    // The first line is all this needs; the chain itself is the next test's.
    await p.until('stdout', /baton demo: .*\n/);
    p.child.kill('SIGTERM');
    await p.exited;
    expect(p.output.stdout).toContain(
      `baton demo: the support team (triage, refunds, sales, tech), model: smollm2-135m at ${url}\n`,
    );
  });

  it('runs the demo end to end with its own embedded server', async () => {
    const out = await cli(['demo'], { TEMPORAL_ADDRESS: undefined });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('model: scripted (set OPENAI_API_KEY for a real model');
    expect(out.stdout).toMatch(/⏸ triage → refunds waits for approval \(handoff [0-9a-f-]{36}\)/);
    expect(out.stdout).toContain('↪ triage → refunds [approved by demo]: Customer wants a refund for order 1042');
    expect(out.stdout).toMatch(/approval +approved by "demo" \(claimed\) via update/);
    expect(out.stdout).toContain('triage -->|"1 · approved by demo"| refunds');
    expect(out.stdout).toMatch(/answer from refunds:\n {2}Your refund of \$59\.90 for order 1042/);
    expect(out.stdout).toContain('chain: triage → refunds (1 handoff)');
    expect(out.stdout).toMatch(/Temporal UI: http:\/\/127\.0\.0\.1:\d+\/namespaces\/default\/workflows\/baton-triage-/);
  });
});
