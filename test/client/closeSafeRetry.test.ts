/**
 * The client retry baton's connections use, against a real gRPC server whose method fails
 * UNAVAILABLE (with no message) before it answers: the retried call's answer reaches its caller,
 * a status the retry does not take ends the call, and a retry due after the connection closed ends
 * it with CANCELLED; nothing throws anywhere else.
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSafeRetryInterceptor } from '../../src/client/closeSafeRetry';
import { freePort } from '../../src/devserver/ports';

const METHOD = '/baton.test.Flaky/Call';
const raw = (b: Buffer) => b;

/** What the server answers each call, in order; then OK with `done`. */
let script: grpc.status[] = [];
let server: grpc.Server;
let address = '';

beforeAll(async () => {
  server = new grpc.Server();
  server.addService(
    {
      Call: {
        path: METHOD,
        requestStream: false,
        responseStream: false,
        requestSerialize: raw,
        requestDeserialize: raw,
        responseSerialize: raw,
        responseDeserialize: raw,
      },
    },
    {
      Call: (_call: unknown, callback: grpc.sendUnaryData<Buffer>) => {
        const code = script.shift();
        if (code !== undefined) callback({ code, details: `scripted ${grpc.status[code]}` });
        else callback(null, Buffer.from('done'));
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  address = `127.0.0.1:${port}`;
});

afterAll(() => server.forceShutdown());

/** One call through the retry; resolves to its answer or its status. */
function call(client: grpc.Client): Promise<string> {
  return new Promise((resolve) =>
    client.makeUnaryRequest(METHOD, raw, raw, Buffer.from('go'), (err, answer) =>
      resolve(err ? `${grpc.status[err.code]}: ${err.details}` : String(answer)),
    ),
  );
}

describe('the retry of baton’s connections', () => {
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  beforeAll(() => void process.on('uncaughtException', onUncaught));
  afterAll(() => void process.off('uncaughtException', onUncaught));
  const client = (at = address) =>
    new grpc.Client(at, grpc.credentials.createInsecure(), { interceptors: [closeSafeRetryInterceptor()] });

  it('gives the caller the answer of the attempt that succeeded, after attempts that failed with no message', async () => {
    script = [grpc.status.UNAVAILABLE, grpc.status.UNAVAILABLE];
    const c = client();
    expect(await call(c)).toBe('done');
    c.close();
    expect(uncaught).toEqual([]);
  });

  it('ends the call with a status the retry does not take, after one it did', async () => {
    script = [grpc.status.UNAVAILABLE, grpc.status.INVALID_ARGUMENT];
    const c = client();
    expect(await call(c)).toBe('INVALID_ARGUMENT: scripted INVALID_ARGUMENT');
    c.close();
    expect(uncaught).toEqual([]);
  });

  // Refused before any stream, a server that is gone: the first attempt delivers its status alone.
  it.each([
    { server: 'one that failed the call UNAVAILABLE', gone: false },
    { server: 'one that is gone', gone: true },
  ])('ends with CANCELLED a call to $server, whose retry came due after the connection closed', async ({ gone }) => {
    script = gone ? [] : [grpc.status.UNAVAILABLE];
    const c = client(gone ? `127.0.0.1:${await freePort()}` : address);
    const answer = call(c);
    await new Promise((r) => setTimeout(r, gone ? 60 : 30));
    c.close();
    expect(await answer).toMatch(/^CANCELLED: the connection was closed before the call was retried/);
    await new Promise((r) => setTimeout(r, 300));
    expect(uncaught).toEqual([]);
  });
});
