import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { team as supportTeam } from '../../examples/support/team';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const run = promisify(execFile);
const server = useTemporalServer();
const root = path.resolve(__dirname, '../..');

/** Run the real `baton` command; resolves to its exit code and output. */
async function cli(args: string[], env: Record<string, string | undefined> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(root, 'bin/baton.js'), ...args], {
      cwd: root,
      env: { ...process.env, OPENAI_API_KEY: '', ...env },
      timeout: 90_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the baton command', () => {
  it('runs a chain with --team and prints each handoff, then the answer', async () => {
    const out = await cli(['run', 'researcher', 'Write about quantum', '--team', 'examples/research/team.ts', '--task-queue', 'cli-text'], {
      TEMPORAL_ADDRESS: server.env.address,
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/chain baton-researcher-\S+ started at researcher/);
    expect(out.stdout).toContain('↪ researcher → writer: Write a short paragraph');
    expect(out.stdout).toMatch(/answer from writer:\n {2}Quantum computers store information in qubits/);
    expect(out.stdout).toContain('chain: researcher → writer (1 handoff)');
  });

  it('prints the result object with --json', async () => {
    const out = await cli(['run', 'researcher', 'quantum', '--team', 'examples/research/team.ts', '--json', '--max-handoffs', '3', '--task-queue', 'cli-json'], {
      TEMPORAL_ADDRESS: server.env.address,
    });
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result).toMatchObject({ finalAgent: 'writer', handoffChain: [{ from: 'researcher', to: 'writer' }] });
    expect(result.usage.modelCalls).toBe(3);
  });

  it('reports a typed failure with exit code 1', async () => {
    const out = await cli(['run', 'researcher', 'quantum', '--team', 'examples/research/team.ts', '--max-handoffs', '0', '--task-queue', 'cli-fail'], {
      TEMPORAL_ADDRESS: server.env.address,
    });
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('MaxHandoffsExceededError: Max handoffs (0) exceeded. Chain: researcher → writer');
  });

  it('explains bad usage with exit code 2', async () => {
    const missing = await cli(['run', 'researcher']);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toContain('expected exactly <agent> <input>');
    const badNumber = await cli(['run', 'a', 'b', '--max-handoffs', 'many']);
    expect(badNumber.stdout).toContain('--max-handoffs must be a whole number >= 0, got "many"');
    const unknownAgent = await cli(['run', 'ghost', 'hi', '--team', 'examples/research/team.ts']);
    expect(unknownAgent.stdout).toContain('agent "ghost" is not in the team (agents: researcher, writer)');
    const noTeam = await cli(['worker']);
    expect(noTeam.stdout).toContain('--team <module> is required');
    const unknown = await cli(['fly']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toContain('unknown command "fly"');
  });

  it('lists, approves and audits a waiting handoff', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    await withWorker(server.env, supportTeam, async (baton) => {
      const run = await baton.start('triage', 'I want a refund for order 1042');
      const [waiting] = await waitFor(() => run.pendingApprovals(), (p) => p.length === 1);
      const listed = await waitFor(() => baton.pending(), (all) => all.some((p) => p.workflowId === run.workflowId));
      expect(listed.length).toBeGreaterThan(0);

      const list = await cli(['pending'], env);
      expect(list.code).toBe(0);
      expect(list.stdout).toContain(`${run.workflowId}  ${waiting!.handoffId}  triage → refunds  waiting`);

      const refused = await cli(['approve', run.workflowId, '--handoff', 'nope', '--as', 'alice'], env);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain('ApprovalRefusedError: Decision on handoff nope refused: no handoff nope is waiting for approval');
      expect((await cli(['approve', run.workflowId], env)).stdout).toContain('--as <approver> is required');

      const approved = await cli(['approve', run.workflowId, '--as', 'alice', '--comment', 'looks right'], env);
      expect(approved.stdout).toContain(`handoff ${waiting!.handoffId} approved by alice`);
      await run.result();

      const timeline = await cli(['audit', run.workflowId], env);
      expect(timeline.stdout).toContain(`chain ${run.workflowId}: completed`);
      expect(timeline.stdout).toMatch(/approval +approved by alice via update: "looks right"/);
      expect(timeline.stdout).toMatch(/refunds +tool issueRefund/);
      const mermaid = await cli(['audit', run.workflowId, '--mermaid'], env);
      expect(mermaid.stdout).toContain('triage -->|"1 · approved by alice"| refunds');
      const json = JSON.parse((await cli(['audit', run.workflowId, '--json'], env)).stdout);
      expect(json).toMatchObject({ schema: 'baton.audit/v1', status: 'completed', handoffs: [{ from: 'triage', to: 'refunds' }] });
    });
  });

  it('replays a failed chain with a raised limit, and checks histories for determinism', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    const workflowId = `cli-replay-${Date.now()}`;
    const team = ['--team', 'examples/research/team.ts', '--task-queue', 'cli-replay'];
    const failed = await cli(['run', 'researcher', 'quantum', '--max-handoffs', '0', '--workflow-id', workflowId, ...team], env);
    expect(failed.code).toBe(1);
    const replayed = await cli(['replay', workflowId, '--max-handoffs', '3', ...team], env);
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toMatch(new RegExp(`chain ${workflowId} continues from last step in run \\S+ \\(resume of run \\S+\\)`));
    expect(replayed.stdout).toContain('↪ researcher → writer');
    expect(replayed.stdout).toMatch(/answer from writer:\n {2}Quantum computers/);

    const checked = await cli(['replay', '--check', 'test/histories/two-agent-handoff.json', workflowId], env);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain('ok    test/histories/two-agent-handoff.json');
    expect(checked.stdout).toContain(`ok    ${workflowId}`);
  });

  it('runs the demo end to end with its own embedded server', async () => {
    const out = await cli(['demo'], { TEMPORAL_ADDRESS: undefined });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/⏸ triage → refunds waits for approval \(handoff [0-9a-f-]{36}\)/);
    expect(out.stdout).toContain('↪ triage → refunds [approved by demo]: Customer wants a refund for order 1042');
    expect(out.stdout).toMatch(/approval +approved by demo via update/);
    expect(out.stdout).toContain('triage -->|"1 · approved by demo"| refunds');
    expect(out.stdout).toMatch(/answer from refunds:\n {2}Your refund of \$59\.90 for order 1042/);
    expect(out.stdout).toContain('chain: triage → refunds (1 handoff)');
    expect(out.stdout).toMatch(/Temporal UI: http:\/\/127\.0\.0\.1:\d+\/namespaces\/default\/workflows\/baton-triage-/);
  });
});
