import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { formatTimeline, toMermaid } from '../audit/format';
import { Baton } from '../client/baton';
import { startDevServer } from '../devserver/server';
import { createWorker } from '../worker';
import { parse } from './args';
import type { Print } from './commands';
import { formatResult } from './commands';
import { approvalPrompter } from './approvals';
import { follow } from './follow';
import { loadTeamModule } from './team';

const DEFAULT_INPUT = 'Hi, I would like a refund for order 1042: the teapot arrived broken.';

/**
 * `baton demo`: the support example end to end. Starts an embedded Temporal dev server unless
 * `TEMPORAL_ADDRESS` is set, runs a worker in-process, and follows a chain triage → refunds → answer.
 */
export async function demo(argv: string[], print: Print): Promise<number> {
  const { values } = parse(argv, { input: { type: 'string', default: DEFAULT_INPUT }, keep: { type: 'boolean', default: false } });
  const { team, hooks } = loadTeamModule(path.resolve(__dirname, '../../examples/support/team.ts'));
  const external = process.env.TEMPORAL_ADDRESS;
  print(`baton demo: the support team (${team.ids.join(', ')}), model: ${process.env.OPENAI_API_KEY ? 'OpenAI' : 'scripted (set OPENAI_API_KEY for a real model)'}`);
  const env = external ? undefined : await startDevServer({ ui: true });
  const address = external ?? env!.address;
  const uiBase = external ? process.env.TEMPORAL_UI_URL ?? 'http://localhost:8233' : `http://127.0.0.1:${Number(address.split(':').pop()) + 1000}`;
  print(external ? `Temporal server: ${address}` : `Temporal dev server started at ${address}`);
  try {
    const connection = env?.nativeConnection ?? (await NativeConnection.connect({ address }));
    const client = env?.client ?? new Client({ connection: await Connection.connect({ address }) });
    const taskQueue = `baton-demo-${process.pid}`;
    const worker = await createWorker({ team, hooks, connection, taskQueue });
    const baton = new Baton({ client, taskQueue });
    const result = await worker.runUntil(async () => {
      print(`customer → triage: ${values.input}`);
      const started = await baton.start('triage', values.input);
      return follow(started, print, { onPending: approvalPrompter(baton, print, { autoApprover: 'demo' }) });
    });
    print(formatResult('triage', result));
    const chain = await baton.audit(result.workflowId);
    print(`\naudit (rebuilt from the workflow history; also \`npx baton audit <workflowId>\`):\n${formatTimeline(chain)}`);
    print(`\nhandoff flow (Mermaid, \`--mermaid\`):\n${toMermaid(chain)}\n`);
    print(`Temporal UI: ${uiBase}/namespaces/default/workflows/${result.workflowId}`);
    if (values.keep && env) {
      print('Server and UI stay up; press Ctrl-C to stop.');
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    } else if (env) {
      print('(the embedded server stops with the demo; run `npx baton demo --keep` to browse the UI)');
    }
    return 0;
  } finally {
    await env?.teardown();
  }
}
