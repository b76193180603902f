/**
 * The real `baton` command's errors and usage: typed failures, bad usage with exit code 2, --help,
 * bad numbers and inputs, team modules that throw, connection profiles.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { PAYLOAD_LIMIT_BYTES } from '../../src/cli/input';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { Team } from '../../src';
import { scriptedAgent } from '../helpers/agents';
import { useCliSession } from '../helpers/cliSession';
import { cli, research, root, tempFile } from './command';
import { typescriptCode } from '../helpers/typescript';

const server = useTemporalServer();
/** Commands refused at their arguments, and --help, run in one process (cliSession.ts). */
const session = useCliSession();
const usage = (args: string[]) => session.usage(args);

describe('the baton command: errors and usage', () => {
  it('reports a typed failure on stderr with exit code 1 (with --json, also as a document on stdout)', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    const [text, json] = await Promise.all([
      cli(['run', 'researcher', 'quantum', ...research, '--max-handoffs', '0', '--task-queue', 'cli-fail'], env),
      cli(
        ['run', 'researcher', 'quantum', ...research, '--max-handoffs', '0', '--task-queue', 'cli-fail', '--json'],
        env,
      ),
    ]);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('MaxHandoffsExceededError: Max handoffs (0) exceeded. Chain: researcher → writer');
    expect(text.stdout).not.toContain('MaxHandoffsExceededError');
    // The CLI reports the failure itself; the in-process worker's warning with the workflow's stack is left out.
    expect(text.stderr).not.toContain('Workflow failed');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { type: 'MaxHandoffsExceededError', limit: 0 } });
    expect(json.stderr).toContain('MaxHandoffsExceededError: Max handoffs (0) exceeded');
  });

  it('explains bad usage on stderr with exit code 2', async () => {
    const [missing, unknownAgent, noTeam, missingTeam, unknown, extra, none] = await Promise.all([
      usage(['run', 'researcher']),
      usage(['run', 'ghost', 'hi', ...research]),
      usage(['worker']),
      usage(['worker', '--team', 'examples/nowhere/team.ts']),
      usage(['fly']),
      usage(['run', 'researcher', 'two', 'words']),
      usage([]),
    ]);
    for (const out of [missing, unknownAgent, noTeam, missingTeam, unknown, extra, none]) {
      expect(out.code).toBe(2);
      expect(out.stdout).toBe('');
    }
    expect(missing.stderr).toContain(
      'baton run: expected <input> after <agent>: quote it, pass - to read stdin, or use --input-file <path>',
    );
    expect(missing.stderr).toContain('usage: baton run <agent> (<input> | - | --input-file <path>)');
    expect(unknownAgent.stderr).toContain(
      'agent "ghost" is not in the team (agents: researcher, physics, engineering, writer)',
    );
    expect(noTeam.stderr).toContain('--team <module> is required');
    expect(missingTeam.stderr).toContain(`no team module at ${path.join(root, 'examples/nowhere/team.ts')}`);
    expect(unknown.stderr).toContain('unknown command "fly"');
    expect(extra.stderr).toContain('expected exactly <agent> <input>: quote the input');
    expect(none.stderr).toContain('baton: durable multi-agent handoffs on Temporal');
  });

  it('explains bad usage of baton chat on stderr with exit code 2, and will not go on with an ended conversation', async () => {
    const bad: [string[], string][] = [
      [['chat'], 'baton chat: expected exactly <agent>'],
      [['chat', 'triage', 'refunds'], 'baton chat: expected exactly <agent>'],
      [
        ['chat', 'triage', '--idle-timeout', 'soon'],
        'baton chat: "--idle-timeout" must be a duration from 1 second up to a year, such as "30 seconds" or a number of milliseconds, got "soon"',
      ],
      [
        ['chat', 'triage', '--idle-timeout', '500'],
        'baton chat: "--idle-timeout" must be a duration from 1 second up to a year, such as "30 seconds" or a number of milliseconds, got 500',
      ],
      [
        ['chat', 'triage', '--max-handoffs', '1.5'],
        'baton chat: --max-handoffs must be an integer >= 0 and <= 1000000, written in digits; got "1.5"',
      ],
      [
        ['chat', 'ghost', '--team', 'examples/support/team.ts'],
        'baton chat: agent "ghost" is not in the team (agents: triage, refunds, sales, tech)',
      ],
      [['chat', 'triage', '--id', ''], 'baton chat: --id must name a conversation; leave it out to start a new one'],
      [['chat', 'triage', '--as', ' '], 'baton chat: --as must name who decides approvals from this chat'],
      [['chat', 'triage', '--colour', 'red'], "baton chat: Unknown option '--colour'"],
    ];
    const outs = await Promise.all(bad.map(([args]) => usage(args)));
    outs.forEach((out, i) => {
      expect(out.code, bad[i]![0].join(' ')).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).toContain(bad[i]![1]);
      expect(out.stderr).toContain('usage: baton chat <agent>');
    });
    const solo = new Team([scriptedAgent('solo', [{ text: 'hello' }])]);
    await withWorker(server.env, solo, async (baton) => {
      const chat = baton.conversation('solo');
      await chat.send('hi');
      await chat.end();
      const ended = await cli(['chat', 'solo', '--id', chat.id], { TEMPORAL_ADDRESS: server.env.address });
      expect(ended.code).toBe(1);
      expect(ended.stderr).toContain(`conversation ${chat.id} has ended; start a new one without --id`);
    });
  });

  it('gives each command its own --help on stdout', async () => {
    const commands = ['demo', 'dev', 'worker', 'run', 'pending', 'approve', 'reject', 'audit', 'replay'];
    const helps = await Promise.all(commands.map((c) => usage([c, c === 'audit' ? '-h' : '--help'])));
    helps.forEach((help, i) => {
      expect(help.code).toBe(0);
      expect(help.stderr).toBe('');
      expect(help.stdout.startsWith(`Usage: baton ${commands[i]} `)).toBe(true);
      for (const other of commands.filter((c) => c !== commands[i]))
        expect(help.stdout).not.toContain(`baton ${other} `);
    });
    expect(helps[3]!.stdout).toContain('--input-file <path>');
    expect(helps[5]!.stdout).toContain('--as <approver>');
    const [viaHelp, overview] = await Promise.all([usage(['help', 'run']), usage(['--help'])]);
    expect(viaHelp.stdout).toBe(helps[3]!.stdout);
    expect(overview.code).toBe(0);
    for (const c of commands) expect(overview.stdout).toContain(`baton ${c} `);
  });

  it('loads the modules of the command it runs only: one that only talks to the server leaves the worker package unloaded', async () => {
    const loadsWorker = (command: string) =>
      new Promise<string>((resolve, reject) => {
        const script = `require('./src/cli/main.ts').main(['${command}', '--help'], { out: () => {} }).then(() => console.log(Object.keys(require.cache).some((f) => f.includes('@temporalio/worker/'))))`;
        execFile(process.execPath, ['-e', typescriptCode(script)], { cwd: root }, (e, stdout) =>
          e ? reject(e) : resolve(stdout.trim()),
        );
      });
    const [approve, pending, audit, run, worker] = await Promise.all(
      ['approve', 'pending', 'audit', 'run', 'worker'].map(loadsWorker),
    );
    // `baton run` loads it when it serves a team in its process (--team), not to start a chain a worker elsewhere runs.
    expect({ approve, pending, audit, run }).toEqual({
      approve: 'false',
      pending: 'false',
      audit: 'false',
      run: 'false',
    });
    expect(worker).toBe('true');
  });

  it('refuses numbers that are not whole numbers in range, naming the range', async () => {
    const bad = ['', '1e3', '0x10', '99999999999999999999', '-1'];
    const outs = await Promise.all(bad.map((n) => usage(['run', 'researcher', 'quantum', `--max-handoffs=${n}`])));
    outs.forEach((out, i) => {
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(
        `--max-handoffs must be an integer >= 0 and <= 1000000, written in digits; got ${JSON.stringify(bad[i])}`,
      );
    });
    const [turns, fromHandoff, port] = await Promise.all([
      usage(['replay', 'wf', '--max-turns', '0']),
      usage(['replay', 'wf', '--from-handoff', '0']),
      usage(['dev', '--port', '70000']),
    ]);
    expect(turns.stderr).toContain('--max-turns must be an integer >= 1 and <= 1000000, written in digits; got "0"');
    expect(fromHandoff.stderr).toContain(
      '--from-handoff must be a whole number from 1 to 1000000, written in digits; got "0"',
    );
    expect(port.stderr).toContain('--port must be a whole number from 1 to 65535, written in digits; got "70000"');
    for (const out of [turns, fromHandoff, port]) expect(out.code).toBe(2);
  });

  it('reports a team module that throws while loading with its stack, as a failure rather than a usage error', async () => {
    const out = await cli(['run', 'solo', 'hi', '--team', 'test/cli/fixtures/throwing-team.ts']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      `the team module ${path.join(root, 'test/cli/fixtures/throwing-team.ts')} threw while loading`,
    );
    expect(out.stderr).toContain('Error: instructions.md is missing: the team cannot be built');
    expect(out.stderr).toMatch(/at loadInstructions \(.*throwing-team\.ts:\d+:\d+\)/);
    expect(out.stderr).not.toContain('usage:');
  });

  it('refuses an empty input, from the command line, stdin or a file', async () => {
    const empty = tempFile('empty.txt', '\n');
    const outs = await Promise.all([
      usage(['run', 'researcher', '']),
      usage(['run', 'researcher', '   ']),
      cli(['run', 'researcher', '-'], {}, ''),
      usage(['run', 'researcher', '--input-file', empty]),
    ]);
    for (const out of outs) {
      expect(out.code).toBe(2);
      expect(out.stderr).toContain('is empty: a chain needs a request to work on');
    }
    expect(outs[2]!.stderr).toContain('baton run: stdin is empty');
    expect(outs[3]!.stderr).toContain(`baton run: the input file ${empty} is empty`);
    const both = await usage(['run', 'researcher', 'hi', '--input-file', empty]);
    expect(both.stderr).toContain('give the input once');
  });

  it('refuses an input over Temporal’s payload limit before starting, naming the limit', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    const big = tempFile('big.txt', 'x'.repeat(PAYLOAD_LIMIT_BYTES + 1));
    // Under the limit as text, over it as JSON: every quote is escaped.
    const quotes = '"'.repeat(Math.ceil(PAYLOAD_LIMIT_BYTES * 0.6));
    const [file, piped] = await Promise.all([
      cli(['run', 'researcher', '--input-file', big, '--workflow-id', 'cli-big-file'], env),
      cli(['run', 'researcher', '-', '--workflow-id', 'cli-big-json'], env, quotes),
    ]);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain(
      `the input file ${big} is 2.00 MB; Temporal refuses a workflow input over 2 MB (2097152 bytes`,
    );
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain(
      'the input is 2.40 MB as workflow input JSON; Temporal refuses a workflow input over 2 MB (2097152 bytes',
    );
    for (const id of ['cli-big-file', 'cli-big-json']) {
      await expect(server.env.client.workflow.getHandle(id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    }
  });

  it('connects as a temporal.toml profile says, as the temporal CLI does, and names the address it cannot reach', async () => {
    const file = tempFile(
      'temporal.toml',
      `[profile.staging]\naddress = "${server.env.address}"\nnamespace = "default"\n\n[profile.nowhere]\naddress = "127.0.0.1:1"\n`,
    );
    const listed = await cli(['pending', '--json'], {
      TEMPORAL_ADDRESS: undefined,
      TEMPORAL_CONFIG_FILE: file,
      TEMPORAL_PROFILE: 'staging',
    });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(Array.isArray(JSON.parse(listed.stdout))).toBe(true);
    const unreachable = await cli(['pending'], {
      TEMPORAL_ADDRESS: undefined,
      TEMPORAL_CONFIG_FILE: file,
      TEMPORAL_PROFILE: 'nowhere',
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('cannot reach a Temporal server at 127.0.0.1:1');
  });

  it('replay --check says when a history file does not exist, rather than looking for a workflow', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    const [missingFile, unknownId] = await Promise.all([
      cli(['replay', '--check', 'test/histories/two-agent-handoff.json', 'test/histories/no-such-history.json'], env),
      cli(['replay', '--check', 'no-such-workflow'], env),
    ]);
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toContain('baton replay: no such history file: test/histories/no-such-history.json');
    expect(missingFile.stdout).toBe('');
    expect(unknownId.code).toBe(2);
    expect(unknownId.stderr).toContain(
      `"no-such-workflow" is neither a history file nor a workflow id on ${server.env.address}`,
    );
  });
});
