import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();
const root = path.resolve(__dirname, '../..');
const socket = `baton-chat-${process.pid}`;

/** tmux on a server of its own, so the test never touches anyone's sessions. */
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

/** `baton chat` in a tmux pane of its own (a real terminal); the pane stays after the command exits. */
function startChat(name: string, args: string[]) {
  const command = [
    `TEMPORAL_ADDRESS=${server.env.address}`,
    'OPENAI_API_KEY=',
    process.execPath,
    'bin/baton.js',
    'chat',
    ...args,
  ].join(' ');
  tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '150',
    '-y',
    '50',
    '-c',
    root,
    `${command}; echo "[exited $?]"; sleep 600`,
  );
  const screen = () => Promise.resolve(tmux('capture-pane', '-p', '-J', '-t', name, '-S', '-500'));
  return {
    screen,
    until: (pattern: RegExp, timeoutMs = 30_000) => waitFor(screen, (s) => pattern.test(s), timeoutMs),
    type: (text: string) => {
      tmux('send-keys', '-t', name, '-l', text);
      tmux('send-keys', '-t', name, 'Enter');
    },
  };
}

afterAll(() => {
  try {
    tmux('kill-server');
  } catch {
    // No session was left.
  }
});

describe('baton chat, in a terminal (tmux)', () => {
  it('talks, shows a handoff waiting for approval, approves it, and resumes by id with the active agent', async () => {
    const queue = taskQueue();
    const args = ['triage', '--team', 'test/conversation/fixtures/chatTeam.ts', '--as', 'alice', '--task-queue', queue];
    const first = startChat('first', args);
    const [, id] = (await first.until(/conversation (\S+) — \/help/, 60_000)).match(/conversation (\S+) — \/help/)!;
    await first.until(/^triage>/m);
    first.type('hello');
    await first.until(/triage: Hello from triage\./);
    first.type('I want a refund for order 42');
    await first.until(
      /⏸ triage → refunds waits for approval \(handoff [^,]+, approvers: alice\): \/approve or \/reject/,
    );
    first.type('/approve looks right');
    await first.until(/handoff \S+ approved by alice/);
    await first.until(
      /↪ triage → refunds \[approved by alice\]: refund order 42\n.*refunds: Refund for order 42 is done\./,
    );
    await first.until(/^refunds>/m);
    first.type('/quit');
    const left = await first.until(/\[exited 0\]/);
    expect(left).toContain(
      `resume with: npx baton chat triage --id ${id} --team test/conversation/fixtures/chatTeam.ts`,
    );

    const again = startChat('again', [...args, '--id', id!]);
    const resumed = await again.until(/^refunds>/m, 60_000);
    expect(resumed).toContain(`conversation ${id} (2 turns so far)`);
    expect(resumed).toMatch(
      /#1 you: hello\ntriage: Hello from triage\.\n#2 you: I want a refund for order 42\n {2}↪ triage → refunds \[approved by alice\]: refund order 42\nrefunds: Refund for order 42 is done\./,
    );
    again.type('thanks');
    await again.until(/refunds: You are welcome\./);
    again.type('/end');
    const ended = await again.until(/\[exited 0\]/);
    expect(ended).toMatch(/conversation ended: 3 turns, 1 handoffs/);
  });
});
