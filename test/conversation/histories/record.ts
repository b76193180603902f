/**
 * Record the conversation histories CI replays: `npx tsx test/conversation/histories/record.ts`.
 * One conversation with a handoff waiting for approval, compactions and continue-as-new, ended on
 * request. Run it again after a change to the conversation's commands that is meant to change them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Baton } from '../../../src/client/baton';
import { scripted, Team } from '../../../src';
import { startDevServer } from '../../../src/devserver/server';
import { createWorker } from '../../../src/worker';
import { scriptedAgent } from '../../helpers/agents';

/** triage greets and hands to refunds (alice approves); refunds answers; summaries come from a rule. */
export function recordedTeam(): Team {
  const summary = { whenIncludes: 'user: ', reply: { text: 'The customer wants order 42 refunded.' } };
  return new Team([
    scriptedAgent('triage', [], {
      model: scripted({
        steps: [{ text: 'Hello.' }, { handoff: { to: 'refunds', message: 'refund order 42' } }],
        rules: [summary],
        requireAllSteps: false,
      }),
    }),
    scriptedAgent('refunds', [], {
      approval: { approvers: ['alice'] },
      model: scripted({
        steps: [{ text: 'Refunded.' }, { text: 'It left today.' }, { text: 'Bye.' }],
        rules: [summary],
        requireAllSteps: false,
      }),
    }),
  ]);
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = await startDevServer();
  const taskQueue = 'record-conversation';
  try {
    const worker = await createWorker({ team: recordedTeam(), connection: env.nativeConnection, taskQueue });
    const baton = new Baton({ client: env.client, taskQueue });
    const id = await worker.runUntil(async () => {
      const chat = baton.conversation('triage', {
        options: { continueAsNewAfterEvents: 40 },
        conversation: { compactAfterTokens: 20, keepRecentTurns: 1 },
      });
      await chat.send('hi there, I have a question about an order', { idempotencyKey: 'one' });
      const refund = chat.send('please refund order 42, it arrived broken', { idempotencyKey: 'two' });
      for (;;) {
        const view = await chat.status().catch(() => undefined);
        if (view?.pendingApprovals.length) {
          await baton.approve(chat.id, view.pendingApprovals[0]!.handoffId, { approver: 'alice' });
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      await refund;
      await chat.send('when will the money arrive?', { idempotencyKey: 'three' });
      await chat.send('when will the money arrive?', { idempotencyKey: 'three' });
      await chat.send('thanks, bye', { idempotencyKey: 'four' });
      await chat.end();
      return chat.id;
    });
    const runs: string[] = [];
    for await (const wf of env.client.workflow.list({ query: `WorkflowId = "${id}"` })) runs.push(wf.runId);
    for (const [i, runId] of runs.entries()) {
      const history = await env.client.workflow.getHandle(id, runId).fetchHistory();
      const file = path.join(__dirname, `conversation.run${runs.length - i}.json`);
      fs.writeFileSync(file, `${historyToJSON(temporal.api.history.v1.History.create(history))}\n`);
      console.log(`recorded ${path.relative(process.cwd(), file)} (${history.events?.length ?? 0} events)`);
    }
  } finally {
    await env.teardown();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
