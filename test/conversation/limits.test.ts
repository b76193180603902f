/**
 * Conversations at Temporal's limits: messages sent faster than they are answered, past the 10
 * updates a workflow takes in flight, keep their order through the library and the HTTP service;
 * an end request a continue-as-new releases is told to come again, as an end request.
 */
import { WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { LIMITS, scripted, Team } from '../../src';
import {
  approveHandoffSignal,
  ConversationContinuedError,
  endConversationUpdate,
  type ConversationReply,
} from '../../src/workflow';
import { conversationError } from '../../src/client';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { TOKENS, withService } from '../server/service';

const server = useTemporalServer();

/** Echoes each message after a while, so messages pile up behind the one answered. */
const slowEcho = () =>
  new Team([
    scriptedAgent('echo', [], {
      model: scripted({
        steps: [],
        rules: Array.from({ length: 16 }, (_, i) => ({
          whenIncludes: `message ${16 - i} `,
          reply: { text: `answer to ${16 - i}`, delayMs: 100 },
        })),
        requireAllSteps: false,
      }),
    }),
  ]);

const MESSAGES = 14;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Send `MESSAGES` messages 40 ms apart (faster than they are answered), each with `send`. */
async function sendSpaced<T>(send: (text: string) => Promise<T>): Promise<T[]> {
  const sent: Promise<T>[] = [];
  for (let i = 1; i <= MESSAGES; i++) {
    sent.push(send(`message ${i} `));
    await pause(25);
  }
  return Promise.all(sent);
}

describe('conversations at Temporal’s limits', () => {
  it(
    'are answered in the order they were sent, none lost, through baton.conversation().send',
    { timeout: 90_000 },
    async () => {
      await withWorker(server.env, slowEcho(), async (baton) => {
        const chat = baton.conversation('echo');
        const replies: ConversationReply[] = await sendSpaced((text) => chat.send(text));
        expect(replies.map((r) => [r.turn, r.output])).toEqual(
          Array.from({ length: MESSAGES }, (_, i) => [i + 1, `answer to ${i + 1}`]),
        );
        expect((await chat.end()).turns).toBe(MESSAGES);
      });
    },
  );

  it(
    'are answered in the order they were sent through the HTTP service, which refuses one over its limit with 413',
    { timeout: 90_000 },
    async () => {
      await withService(server.env, slowEcho(), async ({ call }) => {
        const id = `http-inflight-${Date.now()}`;
        const answers = await sendSpaced((text) =>
          call('POST', `/v1/conversations/${id}/messages`, {
            token: TOKENS.ops,
            body: { agent: 'echo', message: text },
          }),
        );
        expect(answers.map((a) => a.status)).toEqual(Array(MESSAGES).fill(200));
        expect(answers.map((a) => [a.body.turn, a.body.output])).toEqual(
          Array.from({ length: MESSAGES }, (_, i) => [i + 1, `answer to ${i + 1}`]),
        );
        // A message over its limit is refused before it is sent, naming the field, its size and the limit.
        const big = await call('POST', `/v1/conversations/${id}/messages`, {
          token: TOKENS.ops,
          body: { agent: 'echo', message: 'x'.repeat(LIMITS.messageBytes + 1) },
        });
        expect(big.status).toBe(413);
        expect(big.body).toMatchObject({
          title: 'Input too large',
          errors: [
            {
              path: 'sendMessage.message',
              message: `is ${LIMITS.messageBytes + 1} bytes; the limit is ${LIMITS.messageBytes}`,
            },
          ],
        });
      });
    },
  );

  it(
    'keep their place through the HTTP service while a message’s body is slow to arrive',
    { timeout: 90_000 },
    async () => {
      await withService(server.env, slowEcho(), async ({ call, service }) => {
        const id = `http-slow-body-${Date.now()}`;
        expect(
          (
            await call('POST', `/v1/conversations/${id}/messages`, {
              token: TOKENS.ops,
              body: { agent: 'echo', message: 'message 1 ' },
            })
          ).body,
        ).toMatchObject({ turn: 1 });
        // Message 2's headers arrive first, its body 400 ms later; message 3 is sent whole in between.
        const body = JSON.stringify({ agent: 'echo', message: 'message 2 ' });
        const slow = new Promise<{ turn: number; output: string }>((resolve, reject) => {
          const req = http.request(
            `${service.url}/v1/conversations/${id}/messages`,
            {
              method: 'POST',
              headers: {
                authorization: `Bearer ${TOKENS.ops}`,
                'content-type': 'application/json',
                'content-length': Buffer.byteLength(body),
              },
            },
            (res) => {
              let text = '';
              res.on('data', (chunk: Buffer) => (text += chunk.toString()));
              res.on('end', () => resolve(JSON.parse(text) as { turn: number; output: string }));
            },
          );
          req.on('error', reject);
          req.flushHeaders();
          setTimeout(() => req.end(body), 400);
        });
        await pause(100);
        const quick = call('POST', `/v1/conversations/${id}/messages`, {
          token: TOKENS.ops,
          body: { agent: 'echo', message: 'message 3 ' },
        });
        expect(await slow).toMatchObject({ turn: 2, output: 'answer to 2' });
        expect((await quick).body).toMatchObject({ turn: 3, output: 'answer to 3' });
      });
    },
  );

  it(
    'tells an end request released by continue-as-new to come again as an end request; end() does, and ends once the turn is answered',
    { timeout: 90_000 },
    async () => {
      const team = new Team([
        scriptedAgent('triage', [{ handoff: { to: 'refunds', message: 'refund order 42' } }]),
        scriptedAgent('refunds', [{ text: 'Refunded order 42.' }], { approval: { approvers: ['alice'] } }),
      ]);
      await withWorker(server.env, team, async (baton) => {
        const chat = baton.conversation('triage', { options: { continueAsNewAfterEvents: 20 } });
        const turn = chat.send('I want a refund');
        const [pending] = await waitFor(
          () =>
            chat.status().then(
              (v) => v.pendingApprovals,
              () => [],
            ),
          (p) => p.length === 1,
        );
        // An end request from a plain client, which does not follow the conversation into its next run.
        const taken = await chat.handle.startUpdate(endConversationUpdate, {
          waitForStage: WorkflowUpdateStage.ACCEPTED,
        });
        const rawEnd = taken.result().then(
          () => undefined,
          (err: unknown) => err,
        );
        const waitingRun = (await chat.handle.describe()).runId;
        let runId = waitingRun;
        for (let i = 0; i < 30 && runId === waitingRun; i++) {
          await chat.handle.signal(approveHandoffSignal, { handoffId: pending!.handoffId, approver: 'mallory' });
          runId = (await chat.handle.describe()).runId;
        }
        expect(runId).not.toBe(waitingRun);
        const released = await rawEnd;
        expect(released).toBeInstanceOf(WorkflowUpdateFailedError);
        const typed = conversationError(released);
        expect(typed).toBeInstanceOf(ConversationContinuedError);
        expect(typed).toMatchObject({ request: 'end' });
        expect((typed as Error).message).toMatch(
          /before it could end; the new run ends it .*: send the end request \(endConversation\) again for its result/,
        );
        expect((typed as Error).message).not.toMatch(/message 0/);

        const ended = chat.end();
        await baton.approve(chat.id, pending!.handoffId, { approver: 'alice' });
        expect(await turn).toMatchObject({ turn: 1, output: 'Refunded order 42.' });
        expect(await ended).toMatchObject({ endedBy: 'requested', turns: 1 });
      });
    },
  );
});
