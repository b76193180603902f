/**
 * The service's edge on a real Temporal server and worker: bodies over the limit refused while
 * they are read, what would go over Temporal's payload limit refused before anything is sent (a
 * refused message leaves its conversation id usable), and a problem with a status that names it,
 * never a 500 or Temporal's raw text, for asset names, ids of the wrong kind and foreign event ids.
 */
import { ServiceError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { toProblem } from '../../src/server/problems';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { expectProblem, post } from './edge.fixtures';
import { TOKENS, withBareService, withService, type Answer } from './service';
import { connectSse } from './sse';
import { refundTeam } from './team';

const server = useTemporalServer();
const MiB = 1024 * 1024;

describe('sizes at the edge', () => {
  it('refuses bodies over the limit with 413 naming it, reading no further than the limit, with or without a Content-Length', async () => {
    await withBareService(server.env, async ({ call, service }) => {
      for (const [path, token] of [
        ['/v1/runs', TOKENS.ops],
        ['/v1/conversations/edge-big/messages', TOKENS.ops],
        ['/v1/runs/some-chain/approvals/some-approval', TOKENS.alice],
      ] as const) {
        // 40 MB declared: refused on its Content-Length, before the body is read.
        const declared = await post(`${service.url}${path}`, token, 40 * MiB);
        expect(declared.status, path).toBe(413);
        expect(JSON.parse(declared.body).detail).toBe(
          'The request body is 41,943,072 bytes; the service takes bodies of at most 1,048,576 bytes.',
        );
        expect(declared.written).toBeLessThan(20 * MiB);
        // 64 MB offered in chunks without a Content-Length: refused once 1 MiB has been read, long before the rest is sent.
        const chunked = await post(`${service.url}${path}`, token, 64 * MiB, true);
        expect(chunked.status, path).toBe(413);
        expect(JSON.parse(chunked.body)).toEqual({
          title: 'Request body too large',
          status: 413,
          detail: 'The request body is larger; the service takes bodies of at most 1,048,576 bytes.',
        });
        expect(chunked.written).toBeLessThan(20 * MiB);
      }
      const decision = (note: string) =>
        call('POST', '/v1/runs/no-such-chain/approvals/a1', {
          token: TOKENS.alice,
          body: { decision: 'approve', arguments: { note } },
        });
      expectProblem(await decision('x'.repeat(MiB)), 413);
      // Just under the limit, the body is read and the decision goes on to find no such chain.
      expectProblem(await decision('x'.repeat(MiB - 100)), 404);
    });
  });

  it('refuses what would go over Temporal’s payload limit before anything is sent, and a refused first message leaves its conversation id usable at once', async () => {
    await withService(
      server.env,
      refundTeam(),
      async ({ call, logged }) => {
        const three = 'x'.repeat(3_000_000);
        const limit =
          /Temporal takes at most 2,096,128 bytes in one payload \(the namespace's blob size limit, less what baton's data converter adds\)\. Nothing was sent\.$/;
        const start = await call('POST', '/v1/runs', {
          token: TOKENS.ops,
          body: { agent: 'triage', input: three, workflowId: `edge-huge-${Date.now()}` },
        });
        expectProblem(
          start,
          413,
          /^The run input \(agent, input, options and context\) is 3,000,0\d\d bytes as JSON; /,
        );
        expect(start.body.detail).toMatch(limit);
        expectProblem(
          await call('POST', '/v1/runs/some-chain/approvals/a1', {
            token: TOKENS.alice,
            body: { decision: 'approve', arguments: { blob: three } },
          }),
          413,
          /^The decision is 3,000,\d+ bytes as JSON/,
        );
        expectProblem(
          await call('POST', '/v1/runs/some-chain/replay', {
            token: TOKENS.ops,
            body: {
              overrides: {
                models: {
                  triage: {
                    provider: 'scripted',
                    model: 'scripted',
                    steps: [{ text: three }],
                    rules: [],
                    requireAllSteps: false,
                  },
                },
              },
            },
          }),
          413,
          /^The replay request is 3,000,\d+ bytes as JSON/,
        );

        const id = `edge-chat-${Date.now()}`;
        const refused = await call('POST', `/v1/conversations/${id}/messages`, {
          token: TOKENS.ops,
          body: { agent: 'refunds', message: three },
        });
        expectProblem(refused, 413, /^The message is 3,000,\d{3} bytes as JSON; /);
        const next = await call('POST', `/v1/conversations/${id}/messages`, {
          token: TOKENS.ops,
          body: { agent: 'refunds', message: 'hello' },
        });
        expect(next.status, next.text).toBe(200);
        expect(next.body).toMatchObject({ agent: 'refunds', turn: 1 });
        expect(logged).toEqual([]);
      },
      { service: { maxBodyBytes: 8 * MiB } },
    );
  });

  it('takes the payload limit from payloadLimitBytes when given', async () => {
    await withBareService(
      server.env,
      async ({ call }) => {
        expectProblem(
          await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'triage', input: 'x'.repeat(20_000) } }),
          413,
          /takes at most 16,384 bytes in one payload \(the service's payloadLimitBytes\)/,
        );
        expect(
          (await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'triage', input: 'x'.repeat(10_000) } }))
            .status,
        ).toBe(201);
      },
      { payloadLimitBytes: 16_384 },
    );
  });
});

describe('problems, not 500s', () => {
  it('answers asset names that are properties of every object with 404', async () => {
    await withBareService(server.env, async ({ call }) => {
      for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])
        expectProblem(await call('GET', `/assets/${name}`), 404, new RegExp(`^no asset ${name}$`));
      expect((await call('GET', '/assets/baton.js')).status).toBe(200);
    });
  });

  it('refuses conversation routes on a chain’s id and run routes on a conversation’s id with 409 naming what the id is, and unknown ids with 404', async () => {
    await withService(server.env, refundTeam(), async ({ call, baton }) => {
      const { workflowId } = (
        await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'triage', input: 'refund order 42' } })
      ).body;
      await waitFor(
        () => baton.getRun(workflowId).pendingApprovals(),
        (waiting) => waiting.length === 1,
      );
      const chain = new RegExp(
        `^${workflowId} is a chain \\(a handoffRun workflow\\), not a conversation; read it at /v1/runs/${workflowId}; give a conversation an id of its own$`,
      );
      expectProblem(await call('GET', `/v1/conversations/${workflowId}`, { token: TOKENS.viewer }), 409, chain);
      expectProblem(
        await call('POST', `/v1/conversations/${workflowId}/messages`, {
          token: TOKENS.ops,
          body: { agent: 'triage', message: 'hi' },
        }),
        409,
        chain,
      );
      expectProblem(await call('POST', `/v1/conversations/${workflowId}/end`, { token: TOKENS.ops }), 409, chain);
      expectProblem(
        await call('GET', `/v1/conversations/${workflowId}/messages/00000000-0000-1000-8000-000000000000`, {
          token: TOKENS.ops,
        }),
        409,
        chain,
      );
      expectProblem(
        await call('GET', '/v1/conversations/no-such-chat', { token: TOKENS.viewer }),
        404,
        /^no conversation no-such-chat$/,
      );
      expectProblem(await call('POST', '/v1/conversations/no-such-chat/end', { token: TOKENS.ops }), 404);
      // The chain took nothing: it still waits for its approval, as before.
      expect((await baton.getRun(workflowId).pendingApprovals()).map((p) => p.to)).toEqual(['refunds']);

      const chat = `edge-chat-${Date.now()}`;
      expect(
        (
          await call('POST', `/v1/conversations/${chat}/messages`, {
            token: TOKENS.ops,
            body: { agent: 'refunds', message: 'hello' },
          })
        ).status,
      ).toBe(200);
      const conversation = new RegExp(
        `^${chat} is a conversation, not a chain; read it at /v1/conversations/${chat} \\(its approvals are decided at /v1/runs/${chat}/approvals/<approvalId>\\)$`,
      );
      for (const path of [
        `/v1/runs/${chat}`,
        `/v1/runs/${chat}/audit`,
        `/v1/runs/${chat}/audit?format=timeline`,
        `/v1/runs/${chat}/events`,
      ]) {
        expectProblem(await call('GET', path, { token: TOKENS.viewer }), 409, conversation);
      }
      expectProblem(await call('POST', `/v1/runs/${chat}/replay`, { token: TOKENS.ops }), 409, conversation);
    });
  });

  it('refuses a Last-Event-ID that is not an event id of the chain with 400, before the stream opens', async () => {
    await withService(server.env, refundTeam(), async ({ call, service }) => {
      const { workflowId } = (
        await call('POST', '/v1/runs', {
          token: TOKENS.ops,
          body: { agent: 'triage', input: 'refund order 42', options: { maxHandoffs: 0 } },
        })
      ).body;
      const other = (
        await call('POST', '/v1/runs', {
          token: TOKENS.ops,
          body: { agent: 'triage', input: 'refund order 43', options: { maxHandoffs: 0 } },
        })
      ).body;
      const url = `${service.url}/v1/runs/${workflowId}/events`;
      const read = async (lastEventId: string) => {
        const res = await fetch(url, {
          headers: { authorization: `Bearer ${TOKENS.viewer}`, 'last-event-id': lastEventId },
        });
        return {
          status: res.status,
          headers: res.headers,
          text: await res.text(),
          body: undefined as unknown,
        } satisfies Answer;
      };
      for (const [id, why] of [
        [`${other.runId}:0`, `names run ${other.runId}, which is not a run of chain ${workflowId}`],
        [
          '0f0e0d0c-0b0a-4908-8706-050403020100:3',
          'names run 0f0e0d0c-0b0a-4908-8706-050403020100, which is not a run of chain',
        ],
        ['someother:3', 'must be an event id this stream sent, <runId>:<n>'],
        ['3', 'must be an event id this stream sent'],
      ]) {
        const answer = await read(id!);
        answer.body = JSON.parse(answer.text);
        expectProblem(answer, 400, new RegExp(`^Last-Event-ID ${why!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      }
      await waitFor(
        () => call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.viewer }),
        (a) => a.body.status === 'failed',
      );
      const all = [];
      for await (const e of (await connectSse(url, { authorization: `Bearer ${TOKENS.viewer}` })).events) all.push(e);
      const resumed = [];
      for await (const e of (
        await connectSse(url, { authorization: `Bearer ${TOKENS.viewer}`, 'last-event-id': all[0]!.id! })
      ).events)
        resumed.push(e);
      expect(resumed.map((e) => e.id)).toEqual(all.slice(1).map((e) => e.id));
    });
  });

  it("maps Temporal's refusals to statuses that name them, in baton's words", () => {
    const grpc = (code: number, details: string) =>
      new ServiceError('Failed to query Workflow', {
        cause: Object.assign(new Error(`${code} ${details}`), { code, details }),
      });
    const cases: [number, number][] = [
      [3, 400],
      [5, 404],
      [6, 409],
      [9, 409],
      [4, 503],
      [8, 503],
      [14, 503],
      [7, 502],
      [13, 502],
    ];
    for (const [code, status] of cases) {
      const problem = toProblem(grpc(code, 'INVALID_ARGUMENT: Invalid RunId.'));
      expect(problem.status, String(code)).toBe(status);
      expect(problem.message).not.toMatch(/INVALID_ARGUMENT|RunId/);
    }
    expect(toProblem(new TypeError('x is undefined')).status).toBe(500);
  });
});
