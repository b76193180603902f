import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Baton, type RunResult } from '../client/baton';
import { BatonError } from '../common/errors';
import { BATON_SEARCH_ATTRIBUTES, DEFAULT_TASK_QUEUE } from '../common/messages';
import { findTemporalBinary } from '../devserver/binary';
import { createWorker, ensureSearchAttributes } from '../worker';
import { intOption, parse, UsageError } from './args';
import { connect, temporalAddress, temporalNamespace } from './connect';
import { approvalPrompter } from './approvals';
import { chainPath, follow } from './follow';
import { loadTeamModule } from './team';

export type Print = (line: string) => void;

/** `baton dev`: a local Temporal server with the UI and baton's search attributes. */
export async function dev(argv: string[], print: Print): Promise<number> {
  const { values } = parse(argv, {
    port: { type: 'string', default: '7233' },
    'ui-port': { type: 'string', default: '8233' },
    db: { type: 'string', default: '.temporal/baton.db' },
  });
  const binary = findTemporalBinary('cli');
  if (!binary) throw new Error('no Temporal CLI found: set TEMPORAL_CLI_PATH or install python3 with pip');
  fs.mkdirSync(path.dirname(path.resolve(values.db)), { recursive: true });
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', values.port, '--ui-port', values['ui-port'], '--db-filename', values.db];
  for (const key of BATON_SEARCH_ATTRIBUTES) args.push('--search-attribute', `${key.name}=${key.type === 'INT' ? 'Int' : 'Keyword'}`);
  print(`Temporal dev server on 127.0.0.1:${values.port}, UI http://127.0.0.1:${values['ui-port']} (state in ${values.db})`);
  const child = spawn(binary, args, { stdio: 'inherit' });
  const stop = () => child.kill('SIGTERM');
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 0)));
}

/** `baton worker --team <module>`: serve a team until interrupted. */
export async function worker(argv: string[], print: Print): Promise<number> {
  const { values } = parse(argv, { team: { type: 'string' }, 'task-queue': { type: 'string', default: DEFAULT_TASK_QUEUE } });
  const mod = loadTeamModule(values.team);
  const { connection, native } = await connect();
  await ensureSearchAttributes(connection, temporalNamespace()).catch((err: Error) =>
    print(`warning: could not check baton's search attributes: ${err.message}`),
  );
  const w = await createWorker({ team: mod.team, hooks: mod.hooks, connection: await native(), taskQueue: values['task-queue'] });
  print(`baton worker: agents ${mod.team.ids.join(', ')} on task queue "${values['task-queue']}" at ${temporalAddress()}`);
  const stop = () => w.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await w.run();
  return 0;
}

/** `baton run <agent> <input>`: start a chain, print handoffs as they happen, then the answer. */
export async function run(argv: string[], print: Print): Promise<number> {
  const { values, positionals } = parse(argv, {
    team: { type: 'string' },
    json: { type: 'boolean', default: false },
    'max-handoffs': { type: 'string' },
    'task-queue': { type: 'string', default: DEFAULT_TASK_QUEUE },
    'workflow-id': { type: 'string' },
  });
  const [agent, input, ...rest] = positionals;
  if (!agent || input === undefined || rest.length > 0) throw new UsageError('expected exactly <agent> <input> (quote the input)');
  const maxHandoffs = intOption('max-handoffs', values['max-handoffs']);
  const mod = values.team ? loadTeamModule(values.team) : undefined;
  if (mod && !mod.team.get(agent)) throw new UsageError(`agent "${agent}" is not in the team (agents: ${mod.team.ids.join(', ')})`);
  const { client, native } = await connect();
  const baton = new Baton({ client, taskQueue: values['task-queue'] });
  const execute = async (): Promise<RunResult> => {
    const started = await baton.start(agent, input, {
      ...(maxHandoffs !== undefined ? { maxHandoffs } : {}),
      ...(values['workflow-id'] ? { workflowId: values['workflow-id'] } : {}),
    });
    if (!values.json) print(`chain ${started.workflowId} started at ${agent}`);
    return values.json ? started.result() : follow(started, print, { onPending: approvalPrompter(baton, print) });
  };
  try {
    let result: RunResult;
    if (mod) {
      const w = await createWorker({ team: mod.team, hooks: mod.hooks, connection: await native(), taskQueue: values['task-queue'] });
      result = await w.runUntil(execute());
    } else {
      result = await execute();
    }
    print(values.json ? JSON.stringify(result, null, 2) : formatResult(agent, result));
    return 0;
  } catch (err) {
    if (!(err instanceof BatonError)) throw err;
    print(values.json ? JSON.stringify({ error: { type: err.name, message: err.message, ...err.details } }, null, 2) : `${err.name}: ${err.message}`);
    return 1;
  }
}

export function formatResult(start: string, r: RunResult): string {
  return [
    `answer from ${r.finalAgent}:`,
    `  ${r.output.split('\n').join('\n  ')}`,
    `chain: ${chainPath(start, r.handoffChain)} (${r.handoffChain.length} handoff${r.handoffChain.length === 1 ? '' : 's'})`,
    `usage: ${r.usage.modelCalls} model calls, ${r.usage.toolCalls} tool calls, ${r.usage.totalTokens} tokens`,
  ].join('\n');
}
