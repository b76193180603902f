/** `baton run` and `baton chat` in a real terminal (tmux): the answer shows as the model writes it. */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();
const root = path.resolve(__dirname, '../..');
const socket = `baton-stream-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
let fake: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  fake = await startOpenAIServer();
});
afterAll(async () => {
  await fake?.close();
  try {
    tmux('kill-server');
  } catch {
    // No session was left.
  }
});

/** `baton <args>` in a tmux pane of its own; the pane stays after the command exits. */
function inTerminal(name: string, args: string[]) {
  const command = [
    `TEMPORAL_ADDRESS=${server.env.address}`,
    `FAKE_OPENAI_URL=${fake.url}`,
    'OPENAI_API_KEY=test',
    process.execPath,
    'bin/baton.js',
    ...args,
  ].join(' ');
  tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '200',
    '-y',
    '50',
    '-c',
    root,
    `${command}; echo "[exited $?]"; sleep 600`,
  );
  const screen = () => Promise.resolve(tmux('capture-pane', '-p', '-J', '-t', name, '-S', '-500'));
  return {
    until: (pattern: RegExp, timeoutMs = 60_000) => waitFor(screen, (s) => pattern.test(s), timeoutMs),
    type: (text: string) => {
      tmux('send-keys', '-t', name, '-l', text);
      tmux('send-keys', '-t', name, 'Enter');
    },
  };
}

const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');

describe('text as it forms, in a terminal', () => {
  it('baton run and baton chat print the answer while the model writes it', async () => {
    const team = ['--team', 'test/streams/fixtures/cliTeam.ts', '--task-queue', taskQueue()];
    const ran = words(40, 'river');
    const said = words(40, 'otter');
    fake.replies.push(reply.text(ran, { chunkDelayMs: 50 }), reply.text(said, { chunkDelayMs: 50 }));

    const run = inTerminal('run', ['run', 'expert', 'rivers?', ...team]);
    // Part of the answer is on the screen before the chain has answered.
    const partial = await run.until(/expert: river0 river1 river2/);
    expect(partial).not.toContain('river39');
    expect(partial).not.toContain('answer from expert');
    const done = await run.until(/\[exited 0\]/);
    expect(done).toContain(`expert: ${ran}`);
    expect(done).toMatch(/answer from expert:/);

    const chat = inTerminal('chat', ['chat', 'expert', ...team]);
    await chat.until(/^expert>/m);
    chat.type('hello');
    const forming = await chat.until(/expert: otter0 otter1 otter2/);
    expect(forming).not.toContain('otter39');
    await chat.until(new RegExp(`expert: ${said}`));
    chat.type('/quit');
    await chat.until(/\[exited 0\]/);
  });
});
