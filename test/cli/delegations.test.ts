/**
 * The real `baton run` and `baton chat` while an agent delegates: the live line shows the
 * specialist at work, lines show each delegation start and end, and with the worker in another
 * process and no shared broker the command says once why text does not stream.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { unstreamedNote } from '../../src/cli/streamsNote';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { cli, type CliProcess, startCli } from './command';
import { SPECIALIST_DELAY_MS } from './fixtures/delegating-team';

const server = useTemporalServer();
const fixture = 'test/cli/fixtures/delegating-team.ts';
const env = () => ({ TEMPORAL_ADDRESS: server.env.address, BATON_STREAMS_URL: '' });
const NOTE =
  /baton: text does not stream: the worker is another process and no broker is shared, so each answer shows when its call ends; give the worker and this command BATON_STREAMS_URL=redis:\/\/host:6379 \(docs\/streaming\.md\), or serve the team here with --team\r?\n/g;

const workers: CliProcess[] = [];
afterAll(async () => {
  for (const w of workers) {
    w.child.kill('SIGTERM');
    await w.exited;
  }
});

/** `baton worker` serving the fixture on `queue`, in a process of its own. */
async function worker(queue: string): Promise<void> {
  const w = startCli(['worker', '--team', fixture, '--task-queue', queue], env());
  workers.push(w);
  await w.until('stdout', /baton worker: team/, 120_000);
}

describe('baton run while an agent delegates', () => {
  it('on a terminal, shows the specialist at work on the live line, under the agent that waits for it', async () => {
    const p = startCli(
      ['run', 'lead', 'Ask physics', '--team', fixture, '--task-queue', taskQueue()],
      env(),
      undefined,
      { terminal: true },
    );
    p.child.stdin.end();
    expect(await p.exited).toBe(0);
    const output = p.output.stdout;
    const frames = [
      ...output.matchAll(
        new RegExp(`\\r\\x1b\\[2K. lead waits for physics… (\\d+\\.\\d) s: physics: model call… (\\d+\\.\\d) s`, 'g'),
      ),
    ];
    expect(Math.max(...frames.map((m) => Number(m[2])))).toBeGreaterThanOrEqual((SPECIALIST_DELAY_MS - 300) / 1000);
    expect(output).toContain('  ⇢ lead delegates to physics: Explain superposition');
    expect(output).toContain('  ⇠ physics answered lead');
    expect(output).toContain('answer from lead:\r\n  Physics says: both at once.');
  }, 180_000);

  it("off a terminal, prints the delegation and the specialist's calls as lines", async () => {
    const out = await cli(['run', 'lead', 'Ask physics', '--team', fixture, '--task-queue', taskQueue()], env());
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      / {2}lead: model call\n {2}⇢ lead delegates to physics: Explain superposition\n {4}physics: model call\n {2}⇠ physics answered lead\n {2}lead: model call\nanswer from lead:/,
    );
    // In one process the text comes through the in-process transport: nothing to explain.
    expect(out.stdout).not.toMatch(NOTE);
    expect(out.stderr).not.toMatch(NOTE);
  }, 180_000);

  it('with `baton worker` in another process and no shared broker, says once why text does not stream', async () => {
    const queue = taskQueue();
    await worker(queue);
    const out = await cli(['run', 'lead', 'Ask physics', '--task-queue', queue], env());
    expect(out.code).toBe(0);
    // Two answers came whole (the specialist's and the lead's); the note is said once, on stderr as one line: stdout keeps the chain's progress and answer.
    expect(out.stderr.match(NOTE)).toHaveLength(1);
    expect(out.stdout).not.toContain('text does not stream');
    expect(out.stdout).toContain('answer from lead:\n  Physics says: both at once.');
    // With --json stdout is the result document alone, and the note still goes to stderr.
    const json = await cli(['run', 'lead', 'Ask physics', '--task-queue', queue, '--json'], env());
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ output: 'Physics says: both at once.' });
    expect(json.stderr.match(NOTE)).toHaveLength(1);
  }, 180_000);

  it('says nothing of the kind when BATON_STREAMS_URL names a broker', () => {
    expect(unstreamedNote({ BATON_STREAMS_URL: 'redis://127.0.0.1:6379' })).toBeUndefined();
    expect(unstreamedNote({ BATON_STREAMS_URL: '  ' })).toMatch(/BATON_STREAMS_URL=redis/);
    expect(unstreamedNote({})).not.toContain('\n');
  });
});

describe('baton chat while an agent delegates', () => {
  it('shows each delegation as it starts and ends, and with a worker elsewhere why the reply came whole', async () => {
    const queue = taskQueue();
    await worker(queue);
    const p = startCli(['chat', 'lead', '--task-queue', queue], env(), undefined, { terminal: true });
    await p.until('stdout', /lead> /, 60_000);
    p.child.stdin.write('Ask physics\r');
    await p.until('stdout', /lead: Physics says: both at once\./, 60_000);
    p.child.stdin.write('/quit\r');
    expect(await p.exited).toBe(0);
    const output = p.output.stdout;
    expect(output).toMatch(
      /⇢ lead delegates to physics: Explain superposition[\s\S]*⇠ physics answered lead[\s\S]*lead: Physics says/,
    );
    // While physics works, the prompt says who the lead waits for and for how long.
    const waits = [...output.matchAll(/\(lead waits for physics… (\d+\.\d) s\) lead> /g)].map((m) => Number(m[1]));
    expect(Math.max(...waits)).toBeGreaterThanOrEqual((SPECIALIST_DELAY_MS - 600) / 1000);
    expect(output.match(NOTE)).toHaveLength(1);
  }, 180_000);
});
