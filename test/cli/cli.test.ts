import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { team as researchTeam } from '../../examples/research/team';
import { team as supportTeam } from '../../examples/support/team';
import { workflowPollers } from '../../src/cli/pollers';
import { PAYLOAD_LIMIT_BYTES } from '../../src/cli/input';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { toolApprovalTeam } from '../server/team';
import { Team } from '../../src';
import { scriptedAgent } from '../helpers/agents';
import { MODEL_DELAY_MS, TOOL_DELAY_MS } from './fixtures/slow-team';

const server = useTemporalServer();
const root = path.resolve(__dirname, '../..');
const research = ['--team', 'examples/research/team.ts'];
const slowTeam = 'test/cli/fixtures/slow-team.ts';

type Stream = 'stdout' | 'stderr';

/** The real `baton` command as a child process, its output as it arrives. */
interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  output: Record<Stream, string>;
  /** Resolves with the exit code once the process has exited and its output is read. */
  exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` on `stream`, waiting for output as it comes. */
  until(stream: Stream, pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/** How {@link startCli} runs the command. */
interface StartOptions {
  /** On a terminal of its own (script(1)); what it writes there comes out on stdout. Stdin stays open for answers. */
  terminal?: boolean;
}

function startCli(args: string[], env: Record<string, string | undefined> = {}, stdin?: string | Buffer, options: StartOptions = {}): CliProcess {
  const argv = [process.execPath, path.join(root, 'bin/baton.js'), ...args];
  const [command, ...commandArgs] = options.terminal ? ['script', '-qfec', argv.map(shellQuote).join(' '), '/dev/null'] : argv;
  const child = spawn(command!, commandArgs, { cwd: root, env: { ...process.env, OPENAI_API_KEY: '', ...env } });
  const output: Record<Stream, string> = { stdout: '', stderr: '' };
  const watchers = new Set<() => void>();
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream].setEncoding('utf8');
    child[stream].on('data', (chunk: string) => {
      output[stream] += chunk;
      for (const watch of watchers) watch();
    });
  }
  // A command that refuses its input stops reading stdin; the rest of what we write is not needed.
  child.stdin.on('error', () => undefined);
  if (!options.terminal) child.stdin.end(stdin);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const until = (stream: Stream, pattern: RegExp, timeoutMs = 30_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(() => {
        watchers.delete(check);
        reject(new Error(`no ${pattern} on ${stream} within ${timeoutMs} ms:\n${output[stream]}`));
      }, timeoutMs);
      const check = () => {
        const match = output[stream].match(pattern);
        if (!match) return;
        watchers.delete(check);
        clearTimeout(timer);
        resolve(match);
      };
      watchers.add(check);
      check();
    });
  return { child, output, exited, until };
}

function shellQuote(arg: string): string {
  return /^[\w./:=@-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}

/** Run the real `baton` command to its end; resolves to its exit code and output. */
async function cli(args: string[], env: Record<string, string | undefined> = {}, stdin?: string | Buffer) {
  const p = startCli(args, env, stdin);
  const code = await p.exited;
  return { code, ...p.output };
}

function tempFile(name: string, content: string | Buffer): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-cli-')), name);
  fs.writeFileSync(file, content);
  return file;
}

describe('the baton command', () => {
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
    const out = await cli(['run', 'triage', 'refund 1042', '--team', slowTeam, '--task-queue', 'cli-slow-lines'], { TEMPORAL_ADDRESS: server.env.address });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/started at triage\n {2}triage: model call\n {2}↪ triage → refunds: Refund order 1042\n {2}refunds: model call\n {2}refunds: tool issueRefund\n {2}refunds: model call\nanswer from refunds:/);
    expect(out.stdout).not.toContain('\r');
    expect(out.stderr).toBe('');
  });

  it('on a terminal, shows what each agent is doing on one line redrawn in place, with the time so far', async () => {
    const p = startCli(['run', 'triage', 'refund 1042', '--team', slowTeam, '--task-queue', 'cli-slow-tty'], { TEMPORAL_ADDRESS: server.env.address }, undefined, { terminal: true });
    p.child.stdin.end();
    expect(await p.exited).toBe(0);
    const output = p.output.stdout;
    const shown = (label: string) => [...output.matchAll(new RegExp(`\\r\\x1b\\[2K. ${label}… (\\d+\\.\\d) s`, 'g'))].map((m) => Number(m[1]));
    expect(Math.max(...shown('triage: model call'))).toBeGreaterThanOrEqual((MODEL_DELAY_MS - 300) / 1000);
    expect(Math.max(...shown('refunds: tool issueRefund'))).toBeGreaterThanOrEqual((TOOL_DELAY_MS - 300) / 1000);
    // The live line is erased before each printed line, so what stays reads as it does elsewhere.
    expect(output).toContain('\r\x1b[2K  ↪ triage → refunds: Refund order 1042\r\n');
    expect(output).toContain('\r\x1b[2Kanswer from refunds:\r\n  Refunded order 1042.');
    expect(output).not.toMatch(/^ {2}(triage|refunds): (model call|tool)/m);
  });

  it('on a terminal, asks about a waiting handoff with the live line out of the way', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address, BATON_TEST_APPROVAL: '1' };
    const p = startCli(['run', 'triage', 'refund 1042', '--team', slowTeam, '--task-queue', 'cli-slow-ask'], env, undefined, { terminal: true });
    await p.until('stdout', /approve it\? \[y\]es \/ \[n\]o \/ anything else leaves it waiting: /);
    p.child.stdin.write('y\r');
    await p.until('stdout', /your name: /);
    p.child.stdin.write('alice\r');
    await p.until('stdout', /answer from refunds/);
    p.child.stdin.end();
    expect(await p.exited).toBe(0);
    // Between the waiting handoff and its decision only the question and the answers are on the terminal.
    const asking = /⏸ triage → refunds waits for approval \(handoff \S+, approvers: alice\)([\s\S]*?) {4}approved by alice/.exec(p.output.stdout);
    expect(asking).not.toBeNull();
    // Escape sequences of readline's line editing (ESC [ … letter) left out.
    const between = asking![1]!.split('\x1b[').map((part, i) => (i === 0 ? part : part.replace(/^[0-9;]*[A-Za-z]/, ''))).join('');
    expect(between).toMatch(/approve it\? [^\n]*waiting: y\s+your name: alice\s+$/);
    expect(between).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    expect(p.output.stdout).toContain('↪ triage → refunds [approved by alice]: Refund order 1042');
  });

  it('on a terminal, shows a waiting tool call with its arguments, asks again after a refused decision and for a name until one is given, and lets the approver change fields of the arguments', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    const p = startCli(['run', 'refunds', 'Refund order A1.', '--team', 'test/cli/fixtures/tool-approval-team.ts', '--task-queue', 'cli-tool-ask'], env, undefined, { terminal: true });
    const question = /approve it\? \[y\]es \/ \[n\]o \/ \[e\]dit the arguments \/ anything else leaves it waiting: /g;
    const count = (pattern: RegExp) => () => Promise.resolve([...p.output.stdout.matchAll(pattern)].length);
    await p.until('stdout', /⏸ refunds → tool issueRefund \{"orderId":"A1","amount":250\} waits for approval \(tool call \S+, approvers: alice\)/);
    await p.until('stdout', question);
    // A name the policy refuses: the refusal is shown and the question comes back.
    p.child.stdin.write('y\r');
    await p.until('stdout', /your name: /);
    p.child.stdin.write('bob\r');
    await p.until('stdout', /ApprovalRefusedError: .*bob may not decide this tool call[\s\S]*it still waits: decide again/);
    await waitFor(count(question), (n) => n === 2, 10_000);
    p.child.stdin.write('e\r');
    await p.until('stdout', /fields to change \(a JSON object merged onto the model's arguments; now \{"orderId":"A1","amount":250\}\): /);
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
  });

  it('on a terminal, keys typed while no question is asked do not answer the next one', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    const p = startCli(['run', 'refunds', 'Refund orders A1 and A2.', '--team', 'test/cli/fixtures/two-approvals-team.ts', '--task-queue', 'cli-typed-ahead'], env, undefined, { terminal: true });
    await p.until('stdout', /approve it\? /);
    p.child.stdin.write('y\r');
    await p.until('stdout', /your name: /);
    p.child.stdin.write('alice\r');
    await p.until('stdout', /approved by alice/);
    // The model is still thinking (BETWEEN_MS): what is typed now goes nowhere.
    p.child.stdin.write('y\rmallory\r');
    await p.until('stdout', /A2[\s\S]*approve it\? /, 10_000);
    await p.until('stdout', /keys typed before this question are ignored/);
    p.child.stdin.write('n\r');
    await waitFor(async () => [...p.output.stdout.matchAll(/your name: /g)].length, (n) => n === 2, 10_000);
    p.child.stdin.write('alice\r');
    await p.until('stdout', /answer from refunds/);
    p.child.stdin.end();
    expect(await p.exited).toBe(0);
    expect(p.output.stdout).toMatch(/rejected by alice/);
    // The terminal echoes what was typed ahead; it decided nothing.
    expect(p.output.stdout).not.toMatch(/(approved|rejected) by mallory/);
  });

  it('prints only the result object on stdout with --json', async () => {
    const out = await cli(['run', 'researcher', 'quantum', ...research, '--json', '--max-handoffs', '3', '--task-queue', 'cli-json', '--priority', '2', '--fairness-key', 'cli'], {
      TEMPORAL_ADDRESS: server.env.address,
    });
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout);
    // The chain ran at the priority asked for, its workflow tasks included.
    const id = /chain (baton-researcher-\S+) started/.exec(out.stderr)![1]!;
    expect((await server.env.client.workflow.getHandle(id).describe()).raw.workflowExecutionInfo?.priority).toMatchObject({ priorityKey: 2, fairnessKey: 'cli' });
    expect(result).toMatchObject({ finalAgent: 'writer', handoffChain: [{ from: 'researcher', to: 'writer' }] });
    // The researcher's specialists are counted in the chain's usage, and each agent's in usageByAgent.
    const byAgent = result.usageByAgent as Record<string, { modelCalls: number }>;
    expect(Object.keys(byAgent).sort()).toEqual(['engineering', 'physics', 'researcher', 'writer']);
    expect(result.usage.modelCalls).toBe(Object.values(byAgent).reduce((n, u) => n + u.modelCalls, 0));
    expect(out.stderr).toMatch(/chain baton-researcher-\S+ started at researcher/);
  });

  it('reports a typed failure on stderr with exit code 1 (with --json, also as a document on stdout)', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    const [text, json] = await Promise.all([
      cli(['run', 'researcher', 'quantum', ...research, '--max-handoffs', '0', '--task-queue', 'cli-fail'], env),
      cli(['run', 'researcher', 'quantum', ...research, '--max-handoffs', '0', '--task-queue', 'cli-fail', '--json'], env),
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
      cli(['run', 'researcher']),
      cli(['run', 'ghost', 'hi', ...research]),
      cli(['worker']),
      cli(['worker', '--team', 'examples/nowhere/team.ts']),
      cli(['fly']),
      cli(['run', 'researcher', 'two', 'words']),
      cli([]),
    ]);
    for (const out of [missing, unknownAgent, noTeam, missingTeam, unknown, extra, none]) {
      expect(out.code).toBe(2);
      expect(out.stdout).toBe('');
    }
    expect(missing.stderr).toContain('baton run: expected <input> after <agent>: quote it, pass - to read stdin, or use --input-file <path>');
    expect(missing.stderr).toContain('usage: baton run <agent> (<input> | - | --input-file <path>)');
    expect(unknownAgent.stderr).toContain('agent "ghost" is not in the team (agents: researcher, physics, engineering, writer)');
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
      [['chat', 'triage', '--idle-timeout', 'soon'], 'baton chat: "--idle-timeout" must be a duration from 1 second up to a year, such as "30 seconds" or a number of milliseconds, got "soon"'],
      [['chat', 'triage', '--idle-timeout', '500'], 'baton chat: "--idle-timeout" must be a duration from 1 second up to a year, such as "30 seconds" or a number of milliseconds, got 500'],
      [['chat', 'triage', '--max-handoffs', '1.5'], 'baton chat: --max-handoffs must be an integer >= 0 and <= 1000000, written in digits; got "1.5"'],
      [['chat', 'ghost', '--team', 'examples/support/team.ts'], 'baton chat: agent "ghost" is not in the team (agents: triage, refunds, sales, tech)'],
      [['chat', 'triage', '--id', ''], 'baton chat: --id must name a conversation; leave it out to start a new one'],
      [['chat', 'triage', '--as', ' '], 'baton chat: --as must name who decides approvals from this chat'],
      [['chat', 'triage', '--colour', 'red'], "baton chat: Unknown option '--colour'"],
    ];
    const outs = await Promise.all(bad.map(([args]) => cli(args)));
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
    const helps = await Promise.all(commands.map((c) => cli([c, c === 'audit' ? '-h' : '--help'])));
    helps.forEach((help, i) => {
      expect(help.code).toBe(0);
      expect(help.stderr).toBe('');
      expect(help.stdout.startsWith(`Usage: baton ${commands[i]} `)).toBe(true);
      for (const other of commands.filter((c) => c !== commands[i])) expect(help.stdout).not.toContain(`baton ${other} `);
    });
    expect(helps[3]!.stdout).toContain('--input-file <path>');
    expect(helps[5]!.stdout).toContain('--as <approver>');
    const [viaHelp, overview] = await Promise.all([cli(['help', 'run']), cli(['--help'])]);
    expect(viaHelp.stdout).toBe(helps[3]!.stdout);
    expect(overview.code).toBe(0);
    for (const c of commands) expect(overview.stdout).toContain(`baton ${c} `);
  });

  it('refuses numbers that are not whole numbers in range, naming the range', async () => {
    const bad = ['', '1e3', '0x10', '99999999999999999999', '-1'];
    const outs = await Promise.all(bad.map((n) => cli(['run', 'researcher', 'quantum', `--max-handoffs=${n}`])));
    outs.forEach((out, i) => {
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(`--max-handoffs must be an integer >= 0 and <= 1000000, written in digits; got ${JSON.stringify(bad[i])}`);
    });
    const [turns, fromHandoff, port] = await Promise.all([
      cli(['replay', 'wf', '--max-turns', '0']),
      cli(['replay', 'wf', '--from-handoff', '0']),
      cli(['dev', '--port', '70000']),
    ]);
    expect(turns.stderr).toContain('--max-turns must be an integer >= 1 and <= 1000000, written in digits; got "0"');
    expect(fromHandoff.stderr).toContain('--from-handoff must be a whole number from 1 to 1000000, written in digits; got "0"');
    expect(port.stderr).toContain('--port must be a whole number from 1 to 65535, written in digits; got "70000"');
    for (const out of [turns, fromHandoff, port]) expect(out.code).toBe(2);
  });

  it('reports a team module that throws while loading with its stack, as a failure rather than a usage error', async () => {
    const out = await cli(['run', 'solo', 'hi', '--team', 'test/cli/fixtures/throwing-team.ts']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`the team module ${path.join(root, 'test/cli/fixtures/throwing-team.ts')} threw while loading`);
    expect(out.stderr).toContain('Error: instructions.md is missing: the team cannot be built');
    expect(out.stderr).toMatch(/at loadInstructions \(.*throwing-team\.ts:\d+:\d+\)/);
    expect(out.stderr).not.toContain('usage:');
  });

  it('refuses an empty input, from the command line, stdin or a file', async () => {
    const empty = tempFile('empty.txt', '\n');
    const outs = await Promise.all([
      cli(['run', 'researcher', '']),
      cli(['run', 'researcher', '   ']),
      cli(['run', 'researcher', '-'], {}, ''),
      cli(['run', 'researcher', '--input-file', empty]),
    ]);
    for (const out of outs) {
      expect(out.code).toBe(2);
      expect(out.stderr).toContain('is empty: a chain needs a request to work on');
    }
    expect(outs[2]!.stderr).toContain('baton run: stdin is empty');
    expect(outs[3]!.stderr).toContain(`baton run: the input file ${empty} is empty`);
    const both = await cli(['run', 'researcher', 'hi', '--input-file', empty]);
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
    expect(file.stderr).toContain(`the input file ${big} is 2.00 MB; Temporal refuses a workflow input over 2 MB (2097152 bytes`);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('the input is 2.40 MB as workflow input JSON; Temporal refuses a workflow input over 2 MB (2097152 bytes');
    for (const id of ['cli-big-file', 'cli-big-json']) {
      await expect(server.env.client.workflow.getHandle(id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    }
  });

  it('takes its input from stdin or a file, beyond what a command line holds', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    // Linux refuses a single argument over 128 KB; a chain takes inputs up to 256 KB (LIMITS.messageBytes).
    const input = `Tell me about quantum.\n${'notes '.repeat(35_000)}`;
    const file = tempFile('request.txt', input);
    const [piped, fromFile] = await Promise.all([
      cli(['run', 'researcher', '-', ...research, '--json', '--task-queue', 'cli-stdin', '--workflow-id', 'cli-stdin'], env, input),
      cli(['run', 'researcher', '--input-file', file, ...research, '--json', '--task-queue', 'cli-file', '--workflow-id', 'cli-file'], env),
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
    const p = startCli(['run', 'researcher', 'quantum', '--task-queue', queue], { TEMPORAL_ADDRESS: server.env.address });
    const [, workflowId] = await p.until('stdout', /chain (\S+) started at researcher/);
    await p.until('stderr', new RegExp(`no worker is polling task queue "${queue}", so chain ${workflowId} waits`), 15_000);
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
      await waitFor(() => workflowPollers(server.env.client, queue), (n) => n > 0);
    });
  });

  it('with --json, says on stderr how to decide a waiting approval; the first SIGINT stops it and its worker', async () => {
    const p = startCli(['run', 'triage', 'I want a refund for order 1042', '--team', 'examples/support/team.ts', '--json', '--task-queue', taskQueue()], {
      TEMPORAL_ADDRESS: server.env.address,
    });
    const [, workflowId, handoffId] = await p.until('stderr', /decide with: npx baton approve (\S+) --id (\S+) --as <you>/);
    expect(p.output.stdout).toBe('');
    expect(p.output.stderr).toContain(`⏸ triage → refunds waits for approval (handoff ${handoffId})`);

    const signalledAt = Date.now();
    p.child.kill('SIGINT');
    expect(await p.exited).toBe(130);
    expect(Date.now() - signalledAt).toBeLessThan(4_000);
    expect(p.output.stderr).toContain(`stopped: chain ${workflowId} stays in Temporal and goes on when a worker polls task queue`);
    expect(p.output.stdout).toBe('');
    const handle = server.env.client.workflow.getHandle(workflowId!);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.terminate('test done');
  });

  it('connects as a temporal.toml profile says, as the temporal CLI does, and names the address it cannot reach', async () => {
    const file = tempFile('temporal.toml', `[profile.staging]\naddress = "${server.env.address}"\nnamespace = "default"\n\n[profile.nowhere]\naddress = "127.0.0.1:1"\n`);
    const listed = await cli(['pending', '--json'], { TEMPORAL_ADDRESS: undefined, TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging' });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(Array.isArray(JSON.parse(listed.stdout))).toBe(true);
    const unreachable = await cli(['pending'], { TEMPORAL_ADDRESS: undefined, TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'nowhere' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('cannot reach a Temporal server at 127.0.0.1:1');
  });

  it('lists, approves and audits a waiting handoff', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    await withWorker(server.env, supportTeam, async (baton) => {
      const run = await baton.start('triage', 'I want a refund for order 1042');
      const [waiting] = await waitFor(() => run.pendingApprovals(), (p) => p.length === 1);
      await waitFor(() => baton.pending(), (all) => all.some((p) => p.workflowId === run.workflowId));

      const list = await cli(['pending'], env);
      expect(list.code).toBe(0);
      expect(list.stdout).toContain(`${run.workflowId}  ${waiting!.handoffId}  triage → refunds  waiting`);

      const refused = await cli(['approve', run.workflowId, '--handoff', 'nope', '--as', 'alice'], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('ApprovalRefusedError: Decision on handoff nope refused: no handoff nope is waiting for approval');
      expect((await cli(['approve', run.workflowId], env)).stderr).toContain('--as <approver> is required');

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
  }, 120_000);

  it('lists a tool call waiting for approval with its arguments, refuses --args that are not a JSON object or that its parameters refuse, and approves it with edited arguments', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    await withWorker(server.env, toolApprovalTeam(), async (baton) => {
      const run = await baton.start('refunds', 'Refund order A1.');
      const [waiting] = await waitFor(() => run.pendingApprovals(), (p) => p.length === 1);
      await waitFor(() => baton.pending(), (all) => all.some((p) => p.workflowId === run.workflowId));

      const list = await cli(['pending'], env);
      expect(list.code).toBe(0);
      expect(list.stdout).toContain(`${run.workflowId}  ${waiting!.handoffId}  refunds → tool issueRefund {"orderId":"A1","amount":250}  waiting`);
      const listed = (JSON.parse((await cli(['pending', '--json'], env)).stdout) as { workflowId: string }[]).find((p) => p.workflowId === run.workflowId);
      // Addressed by approvalId (handoffId stays), the arguments an object as decisions take them.
      expect(listed).toMatchObject({ approvalId: waiting!.handoffId, handoffId: waiting!.handoffId, tool: { arguments: { orderId: 'A1', amount: 250 }, argumentsText: '{"orderId":"A1","amount":250}' } });

      // Command lines refused before anything is sent, run side by side.
      const notObjects = [
        ['{amount: 200}', 'got text that is not JSON'],
        ['[200]', 'got a list'],
        ['200', 'got a number'],
      ] as const;
      const [rejectWithArgs, twoIds, ...refusals] = await Promise.all([
        cli(['reject', run.workflowId, '--as', 'alice', '--args', '{}'], env),
        cli(['approve', run.workflowId, '--id', waiting!.handoffId, '--handoff', 'another', '--as', 'alice'], env),
        ...notObjects.map(([args]) => cli(['approve', run.workflowId, '--as', 'alice', '--args', args], env)),
      ]);
      notObjects.forEach(([args, got], i) => {
        expect(refusals[i]!.code, args).toBe(2);
        expect(refusals[i]!.stderr).toContain(`--args must be a JSON object of the tool's arguments, e.g. {"orderId":"A1"}; ${got}`);
      });
      expect(rejectWithArgs!.code).toBe(2);
      expect([twoIds!.code, twoIds!.stderr]).toEqual([2, expect.stringContaining(`--id ${waiting!.handoffId} and --handoff another name different approvals: give one`)]);
      const mismatched = await cli(['approve', run.workflowId, '--as', 'alice', '--args', '{"orderId":"A1","amount":"lots"}'], env);
      expect(mismatched.code).toBe(1);
      expect(mismatched.stderr).toContain(
        `baton approve: ApprovalRefusedError: Decision on handoff ${waiting!.handoffId} refused: the edited arguments do not match the parameters of issueRefund: $.amount must be number, got string "lots"`,
      );
      expect(await run.pendingApprovals()).toHaveLength(1);

      // As `baton approve --help` shows it: only the fields to change, merged onto the model's.
      const approved = await cli(['approve', run.workflowId, '--id', waiting!.handoffId, '--as', 'alice', '--args', '{"amount":200}'], env);
      expect(approved.stderr).toBe('');
      expect(approved.code).toBe(0);
      expect(approved.stdout).toContain(
        `tool call ${waiting!.handoffId} (issueRefund) approved by alice with edited arguments {"orderId":"A1","amount":200} (changed amount; orderId as the model gave it)`,
      );
      expect((await run.result()).output).toBe('Refund issued.');
      const timeline = await cli(['audit', run.workflowId], env);
      expect(timeline.stdout).toMatch(/approval +approved by alice with edited arguments \{"orderId":"A1","amount":200\} via update/);
      expect(timeline.stdout).toMatch(/refunds +tool issueRefund\(\{"orderId":"A1","amount":200\}\) → \{"orderId":"A1","refunded":200\}/);
    });
  }, 120_000);

  it('replays a failed chain with a raised limit, and checks histories for determinism', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    const workflowId = `cli-replay-${Date.now()}`;
    const team = [...research, '--task-queue', 'cli-replay'];
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
    expect(unknownId.stderr).toContain(`"no-such-workflow" is neither a history file nor a workflow id on ${server.env.address}`);
  });

  it('names the model and the server the demo runs on', async () => {
    const url = 'http://127.0.0.1:8000/v1';
    const p = startCli(['demo'], { TEMPORAL_ADDRESS: server.env.address, OPENAI_API_KEY: 'local', OPENAI_BASE_URL: url, BATON_MODEL: 'smollm2-135m' });
    // The first line is all this needs; the chain itself is the next test's.
    await p.until('stdout', /baton demo: .*\n/);
    p.child.kill('SIGTERM');
    await p.exited;
    expect(p.output.stdout).toContain(`baton demo: the support team (triage, refunds, sales, tech), model: smollm2-135m at ${url}\n`);
  });

  it('runs the demo end to end with its own embedded server', async () => {
    const out = await cli(['demo'], { TEMPORAL_ADDRESS: undefined });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('model: scripted (set OPENAI_API_KEY for a real model');
    expect(out.stdout).toMatch(/⏸ triage → refunds waits for approval \(handoff [0-9a-f-]{36}\)/);
    expect(out.stdout).toContain('↪ triage → refunds [approved by demo]: Customer wants a refund for order 1042');
    expect(out.stdout).toMatch(/approval +approved by demo via update/);
    expect(out.stdout).toContain('triage -->|"1 · approved by demo"| refunds');
    expect(out.stdout).toMatch(/answer from refunds:\n {2}Your refund of \$59\.90 for order 1042/);
    expect(out.stdout).toContain('chain: triage → refunds (1 handoff)');
    expect(out.stdout).toMatch(/Temporal UI: http:\/\/127\.0\.0\.1:\d+\/namespaces\/default\/workflows\/baton-triage-/);
  });
});
