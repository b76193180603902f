import path from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { formatTimeline, toMermaid } from '../audit/format';
import type { Team } from '../agents/team';
import { Baton } from '../client/baton';
import { batonDataConverter } from '../payloads/codec';
import { startDevServer } from '../devserver/server';
import { parse, UsageError } from './args';
import { approvalPrompter } from './prompter';
import type { Command } from './context';
import { follow } from './follow';
import { formatResult } from './print';
import { untilDone } from './serve';
import { loadTeamModule } from './team';
import { connectClient } from '../client/connect';

const DEFAULT_INPUT = 'Hi, I would like a refund for order 1042: the teapot arrived broken.';

/**
 * `baton demo`: the support example end to end. Starts an embedded Temporal dev server unless
 * `TEMPORAL_ADDRESS` is set, runs a worker in-process, and follows a chain triage → refunds → answer.
 */
export const demoCommand: Command = {
  synopsis: 'baton demo [--input <text>] [--keep]',
  summary: 'run the support example end to end (no setup needed)',
  reportsChainFailures: true,
  help: `Options:
  --input <text>    what the customer says (default: a refund request for order 1042)
  --keep            keep the embedded server and its UI up after the chain, until Ctrl-C

Starts an embedded Temporal dev server (or uses TEMPORAL_ADDRESS), serves the support team in this
process, follows a chain triage → refunds (which needs approval: asked in a terminal, approved as
"demo" otherwise), then prints the audit timeline and the handoff flow.`,
  async run(argv, { out, interrupted }) {
    const { values, positionals } = parse(argv, {
      input: { type: 'string', default: DEFAULT_INPUT },
      keep: { type: 'boolean', default: false },
    });
    if (positionals.length > 0)
      throw new UsageError(`unexpected argument "${positionals[0]}" (the customer's words go in --input)`);
    if (values.input.trim() === '') throw new UsageError('--input is empty: say what the customer wants');
    const team = loadTeamModule(path.resolve(__dirname, '../../examples/support/team'));
    const external = process.env.TEMPORAL_ADDRESS;
    out(`baton demo: the support team (${team.team.ids.join(', ')}), model: ${describeModels(team.team)}`);
    const env = external ? undefined : await startDevServer({ ui: true });
    const address = external ?? env!.address;
    const uiBase = external ? (process.env.TEMPORAL_UI_URL ?? 'http://localhost:8233') : env!.uiAddress!;
    out(external ? `Temporal server: ${address}` : `Temporal dev server started at ${address}`);
    try {
      // The payload codecs configured in the environment (encryption, compression), as the worker uses them.
      const client = new Client({
        connection: env?.connection ?? (await connectClient({ address })),
        dataConverter: batonDataConverter(),
      });
      const taskQueue = `baton-demo-${process.pid}`;
      const baton = new Baton({ client, taskQueue });
      const connection = async () => env?.nativeConnection ?? NativeConnection.connect({ address });
      const result = await untilDone(
        async () => {
          out(`customer → triage: ${values.input}`);
          const started = await baton.start('triage', values.input);
          return follow(started, out, { onPending: approvalPrompter(baton, out, { autoApprover: 'demo' }) });
        },
        { team, connection, taskQueue, interrupted },
      );
      out(formatResult('triage', result));
      const chain = await baton.audit(result.workflowId);
      out(
        `\naudit (rebuilt from the workflow history; also \`npx baton audit <workflowId>\`):\n${formatTimeline(chain)}`,
      );
      out(`\nhandoff flow (Mermaid, \`--mermaid\`):\n${toMermaid(chain)}\n`);
      out(`Temporal UI: ${uiBase}/namespaces/default/workflows/${result.workflowId}`);
      if (values.keep && env) {
        out('Server and UI stay up; press Ctrl-C to stop.');
        await interrupted;
      } else if (env) {
        out('(the embedded server stops with the demo; run `npx baton demo --keep` to browse the UI)');
      }
      return 0;
    } finally {
      await env?.teardown();
    }
  },
};

/** Which model the team's agents run on, and where: `gpt-4o-mini at https://api.openai.com/v1`, or the scripted one. */
export function describeModels(team: Team): string {
  const shown = new Set<string>();
  for (const { model } of team.agents) {
    if (model.provider === 'scripted')
      shown.add(
        'scripted (set OPENAI_API_KEY for a real model: BATON_MODEL, default gpt-4o-mini, at OPENAI_BASE_URL or OpenAI)',
      );
    else if (model.provider === 'openai')
      shown.add(
        `${model.model} at ${model.settings?.baseURL ?? process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1'}`,
      );
    else shown.add(`${model.model} (provider ${model.provider})`);
  }
  return [...shown].join(', ');
}
