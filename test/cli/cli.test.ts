import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTemporalServer } from '../helpers/temporal';

const run = promisify(execFile);
const server = useTemporalServer();
const root = path.resolve(__dirname, '../..');

/** Run the real `baton` command; resolves to its exit code and output. */
async function baton(args: string[], env: Record<string, string | undefined> = {}) {
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
    const out = await baton(['run', 'researcher', 'Write about quantum', '--team', 'examples/research/team.ts', '--task-queue', 'cli-text'], {
      TEMPORAL_ADDRESS: server.env.address,
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/chain baton-researcher-\S+ started at researcher/);
    expect(out.stdout).toContain('↪ researcher → writer: Write a short paragraph');
    expect(out.stdout).toMatch(/answer from writer:\n {2}Quantum computers store information in qubits/);
    expect(out.stdout).toContain('chain: researcher → writer (1 handoff)');
  });

  it('prints the result object with --json', async () => {
    const out = await baton(['run', 'researcher', 'quantum', '--team', 'examples/research/team.ts', '--json', '--max-handoffs', '3', '--task-queue', 'cli-json'], {
      TEMPORAL_ADDRESS: server.env.address,
    });
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result).toMatchObject({ finalAgent: 'writer', handoffChain: [{ from: 'researcher', to: 'writer' }] });
    expect(result.usage.modelCalls).toBe(3);
  });

  it('reports a typed failure with exit code 1', async () => {
    const out = await baton(['run', 'researcher', 'quantum', '--team', 'examples/research/team.ts', '--max-handoffs', '0', '--task-queue', 'cli-fail'], {
      TEMPORAL_ADDRESS: server.env.address,
    });
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('MaxHandoffsExceededError: Max handoffs (0) exceeded. Chain: researcher → writer');
  });

  it('explains bad usage with exit code 2', async () => {
    const missing = await baton(['run', 'researcher']);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toContain('expected exactly <agent> <input>');
    const badNumber = await baton(['run', 'a', 'b', '--max-handoffs', 'many']);
    expect(badNumber.stdout).toContain('--max-handoffs must be a whole number >= 0, got "many"');
    const unknownAgent = await baton(['run', 'ghost', 'hi', '--team', 'examples/research/team.ts']);
    expect(unknownAgent.stdout).toContain('agent "ghost" is not in the team (agents: researcher, writer)');
    const noTeam = await baton(['worker']);
    expect(noTeam.stdout).toContain('--team <module> is required');
    const unknown = await baton(['fly']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toContain('unknown command "fly"');
  });

  it('runs the demo end to end with its own embedded server', async () => {
    const out = await baton(['demo'], { TEMPORAL_ADDRESS: undefined });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('↪ triage → refunds: Customer wants a refund for order 1042');
    expect(out.stdout).toMatch(/answer from refunds:\n {2}Your refund of \$59\.90 for order 1042/);
    expect(out.stdout).toContain('chain: triage → refunds (1 handoff)');
    expect(out.stdout).toMatch(/Temporal UI: http:\/\/127\.0\.0\.1:\d+\/namespaces\/default\/workflows\/baton-triage-/);
  });
});
