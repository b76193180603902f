import { temporal as temporalProto } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { ModelCallFailedError } from '../../src';
import { Baton } from '../../src/client/baton';
import { reply } from '../helpers/openaiServer';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import {
  fastRetry,
  modelTurns,
  researchTeam,
  runnerOn,
  soloTeam,
  untilAsked,
  useFakeServers,
  workerProcess,
} from './faults.fixtures';

const temporal = useTemporalServer();
const servers = useFakeServers();
const runUnder = runnerOn(temporal, servers);
const solo = (settings: { timeoutMs?: number } = {}) => soloTeam(servers.fake, settings);

describe('provider faults are retried, and history shows each', () => {
  it('a burst of 429s, waiting as long as each Retry-After asks', async () => {
    const slowDown = () => reply.error(429, 'Rate limit reached for gpt-fake', { 'retry-after': '1' });
    const { outcome, retried, audit } = await runUnder(solo(), [
      slowDown(),
      slowDown(),
      slowDown(),
      reply.text('after the burst'),
    ]);
    expect(outcome).toMatchObject({ output: 'after the burst' });
    const gaps = servers.fake.requests.slice(1).map((r, i) => r.at - servers.fake.requests[i]!.at);
    // The run's own backoff is 100-200 ms: these waits are the server's.
    expect(gaps.every((g) => g >= 900)).toBe(true);
    expect(retried).toEqual([
      { attempt: 4, type: 'ModelHttpError', message: expect.stringMatching(/answered 429: Rate limit reached/) },
    ]);
    expect(modelTurns(audit)[0]?.execution).toMatchObject({ status: 'completed', attempts: 4 });
  });

  it('500, 502 and 503 answers, including an HTML gateway page', async () => {
    const gateway = {
      ...reply.raw(
        502,
        '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
      ),
      headers: { 'content-type': 'text/html' },
    };
    const { outcome, retried, audit } = await runUnder(solo(), [
      reply.error(500, 'upstream broke'),
      gateway,
      reply.error(503, 'Service Unavailable', { 'retry-after': '1' }),
      reply.text('recovered'),
    ]);
    expect(outcome).toMatchObject({ output: 'recovered' });
    expect(servers.fake.requests).toHaveLength(4);
    expect(retried).toEqual([{ attempt: 4, type: 'ModelHttpError', message: expect.stringMatching(/answered 503/) }]);
    expect(modelTurns(audit)[0]?.execution.attempts).toBe(4);
  });

  it('a response that never starts: the call times out as slow, heartbeating meanwhile, and is retried after a pause', async () => {
    const started = Date.now();
    const { outcome, retried } = await runUnder(
      solo({ timeoutMs: 1_500 }),
      [reply.text('too late', { delayMs: 20_000 }), reply.text('in time')],
      { start: { heartbeatTimeout: '2 seconds' } },
    );
    expect(outcome).toMatchObject({ output: 'in time' });
    expect(retried).toEqual([
      {
        attempt: 2,
        type: 'ModelTimeout',
        message: expect.stringMatching(
          /^model endpoint slow: .* accepts connections but sent no answer within 1500 ms$/,
        ),
      },
    ]);
    expect(servers.fake.requests[0]?.closedEarly).toBe(true);
    // The pause before asking again is the timeout's (the run's own backoff is 100-200 ms).
    expect(servers.fake.requests[1]!.at - servers.fake.requests[0]!.at).toBeGreaterThanOrEqual(2_900);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a server too slow for two attempts in a row: the chain fails saying so, with no third request', async () => {
    const late = () => reply.text('too late', { delayMs: 5_000 });
    const { outcome } = await runUnder(solo({ timeoutMs: 1_000 }), [late(), late(), reply.text('never asked')], {
      start: { heartbeatTimeout: '2 seconds' },
    });
    expect(outcome).toBeInstanceOf(ModelCallFailedError);
    expect((outcome as Error).message).toMatch(
      /model endpoint slow: .* no answer within 1000 ms; the same request timed out 2 times in a row, so it is not sent again/,
    );
    expect(servers.fake.requests).toHaveLength(2);
    expect(servers.fake.requests.every((r) => r.closedEarly)).toBe(true);
  });

  it('a stream that stops sending: the stall is noticed and the call retried', async () => {
    const { outcome, retried } = await runUnder(
      solo({ timeoutMs: 1_500 }),
      [reply.text('an answer that stops half way', { stallAfterChunks: 3 }), reply.text('whole')],
      { start: { heartbeatTimeout: '2 seconds' } },
    );
    expect(outcome).toMatchObject({ output: 'whole' });
    expect(retried).toEqual([
      {
        attempt: 2,
        type: 'ModelStreamStalled',
        message: expect.stringMatching(/sent nothing for 1500 ms after 3 chunk/),
      },
    ]);
  });

  it('a connection reset before the answer, then one in the middle of the stream', async () => {
    const { outcome, retried, audit } = await runUnder(solo(), [
      { ...reply.text('never'), resetConnection: true },
      reply.text('an answer that breaks off', { cutAfterChunks: 3 }),
      reply.text('whole'),
    ]);
    expect(outcome).toMatchObject({ output: 'whole' });
    expect(retried).toEqual([
      { attempt: 3, type: 'ModelStreamInterrupted', message: expect.stringMatching(/broke off after 3 chunk/) },
    ]);
    expect(modelTurns(audit)[0]?.execution.attempts).toBe(3);
    // The reset was the first attempt's; the cut stream is asked for again as a stream.
    expect(servers.fake.requests.map((r) => r.body.stream)).toEqual([true, true, true]);
  });

  it.each([
    ['streamed', true],
    ['not streamed', false],
  ])('a malformed JSON body (%s)', async (_how, streaming) => {
    const { outcome, retried } = await runUnder(
      solo(),
      [{ ...reply.text('x'), malformed: true }, reply.text('well formed')],
      { streaming },
    );
    expect(outcome).toMatchObject({ output: 'well formed' });
    expect(retried).toEqual([
      { attempt: 2, type: 'ModelMalformedResponse', message: expect.stringMatching(/malformed JSON/) },
    ]);
    // One bad answer does not stop the endpoint from streaming.
    expect(servers.fake.requests.map((r) => r.body.stream ?? false)).toEqual([streaming, streaming]);
  });

  it('an empty choice list: retried, or (streamed) asked again without streaming', async () => {
    const plain = await runUnder(solo(), [reply.emptyChoices(), reply.text('a choice')], { streaming: false });
    expect(plain.outcome).toMatchObject({ output: 'a choice' });
    expect(plain.retried).toEqual([
      { attempt: 2, type: 'ModelEmptyResponse', message: 'the model answered with no choices' },
    ]);
    servers.fake.requests.length = 0;
    const streamed = await runUnder(solo(), [reply.emptyChoices(), reply.text('a choice')]);
    expect(streamed.outcome).toMatchObject({ output: 'a choice' });
    expect(servers.fake.requests.map((r) => r.body.stream)).toEqual([true, undefined]);
  });

  it('a fault that outlasts the retry policy fails the chain with a typed error, and replay continues it', async () => {
    const down = () => reply.error(503, 'Service Unavailable');
    const { outcome, run, baton } = await runUnder(solo(), [down(), down()], {
      start: { retry: { ...fastRetry, maximumAttempts: 2 } },
    });
    expect(outcome).toBeInstanceOf(ModelCallFailedError);
    servers.fake.replies.push(reply.text('back up'));
    const result = await withWorker(
      temporal.env,
      solo(),
      async () => {
        await baton.replay(run.workflowId);
        return baton.getRun(run.workflowId).result();
      },
      { taskQueue: (await run.handle.describe()).taskQueue },
    );
    expect(result.output).toBe('back up');
  });
});

describe('a worker that hangs during a call', () => {
  it('misses its heartbeats; the call times out and another worker starts it again', async () => {
    const queue = taskQueue();
    servers.fake.replies.push(
      reply.text('from the hung worker', { delayMs: 30_000 }),
      reply.text('from the other worker'),
    );
    const frozen = await workerProcess(temporal.env, servers.fake.url, queue);
    try {
      const run = await new Baton({ client: temporal.env.client, taskQueue: queue }).start('solo', 'go', {
        heartbeatTimeout: '2 seconds',
        retry: fastRetry,
      });
      await untilAsked(servers.fake, 1);
      frozen.kill('SIGSTOP');
      const result = await withWorker(
        temporal.env,
        solo(),
        async () => {
          // The call starts again once the chain's next workflow task runs here: after the heartbeat
          // timeout and, as the chain was cached on the frozen worker, its sticky queue's timeout.
          await untilAsked(servers.fake, 2, 60_000);
          // Thawed, it finds its call given to another worker; its pollers take part again.
          frozen.kill('SIGCONT');
          return run.result();
        },
        { taskQueue: queue },
      );
      expect(result).toMatchObject({ output: 'from the other worker' });
      const events = (await run.handle.fetchHistory()).events ?? [];
      const lost = events.find((e) => e.activityTaskTimedOutEventAttributes)?.activityTaskTimedOutEventAttributes;
      expect(lost?.failure?.timeoutFailureInfo?.timeoutType).toBe(
        temporalProto.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT,
      );
      // The call was started again, not retried: a lost worker spends none of its attempts.
      const modelCall = events
        .filter((e) => e.activityTaskStartedEventAttributes)
        .at(-1)!.activityTaskStartedEventAttributes!;
      expect(modelCall.attempt).toBe(1);
      expect(modelCall.identity).not.toBe('frozen-worker');
    } finally {
      frozen.kill('SIGKILL');
    }
  }, 120_000);
});

describe('bad model output becomes an answer the model sees', () => {
  it('tool-call arguments that are not JSON, on a server that parses earlier calls (vLLM)', async () => {
    const { outcome, audit } = await runUnder(
      researchTeam(servers.vllmLike),
      [
        reply.rawToolCalls([{ name: 'lookup', arguments: '{"topic": "qub' }]),
        reply.rawToolCalls([{ name: 'handoff', arguments: '{"to": "writer", "message": ' }]),
        reply.toolCalls([{ name: 'handoff', arguments: { to: 'writer', message: 'Qubits.' } }]),
        reply.text('An article.'),
      ],
      { server: servers.vllmLike },
    );
    expect(outcome).toMatchObject({ output: 'An article.', finalAgent: 'writer' });
    const [, second, third] = servers.vllmLike.requests;
    expect(second?.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringMatching(/^Error: the arguments of lookup are not valid JSON: \{"topic": "qub$/),
    });
    expect(third?.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringMatching(/handoff: not valid JSON/),
    });
    // The bad arguments go back as {} (vLLM would refuse them); history keeps what the model sent.
    expect(third?.body.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.arguments)).toEqual([
      '{}',
      '{}',
    ]);
    expect(audit.events.find((e) => e.kind === 'tool_call')).toMatchObject({
      tool: 'lookup',
      arguments: '{"topic": "qub',
      ok: false,
      result: expect.stringMatching(/not valid JSON/),
    });
    expect(audit.events.find((e) => e.kind === 'handoff_requested')).toMatchObject({
      outcome: 'invalid_arguments',
      arguments: '{"to": "writer", "message": ',
    });
  });

  it('a call to a tool the agent does not have', async () => {
    const { outcome, audit } = await runUnder(researchTeam(servers.fake), [
      reply.toolCalls([{ name: 'wire_money', arguments: { amount: 5 } }]),
      reply.text('I cannot wire money.'),
    ]);
    expect(outcome).toMatchObject({ output: 'I cannot wire money.', finalAgent: 'researcher' });
    expect(servers.fake.requests[1]?.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: 'Error: unknown tool "wire_money". Available tools: lookup, handoff',
    });
    expect(audit.events.find((e) => e.kind === 'tool_call')).toMatchObject({
      tool: 'wire_money',
      answeredBy: 'workflow',
      result: expect.stringMatching(/unknown tool/),
    });
  });

  it.each([
    ['streamed', true],
    ['not streamed', false],
  ])('a refusal is the agent’s answer (%s)', async (_how, streaming) => {
    const refusal = "I'm sorry, I can't help with that request.";
    const { outcome, audit } = await runUnder(solo(), [reply.refusal(refusal)], { streaming });
    expect(outcome).toMatchObject({ output: refusal, finalAgent: 'solo' });
    expect(servers.fake.requests).toHaveLength(1);
    expect(modelTurns(audit)[0]).toMatchObject({ content: refusal, execution: { attempts: 1 } });
  });
});
