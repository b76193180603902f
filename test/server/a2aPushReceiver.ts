/** A receiver of the A2A service's push notifications for the tests: it keeps each webhook it is sent, and reads the task states they carry. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { pushSignature } from '../../src/server/a2a/push';

/** A webhook as the receiver got it: its body and the headers that sign and name it. */
export interface ReceivedPush {
  body: string;
  signature: string;
  token: string;
}

/** A push receiver listening on a free local port: its URL, what it has received so far, and its server to close. */
export interface PushReceiver {
  url: string;
  received: ReceivedPush[];
  server: Server;
}

/** Starts a receiver that answers every webhook with 200 and keeps it. */
export async function startPushReceiver(): Promise<PushReceiver> {
  const received: ReceivedPush[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({
        body,
        signature: String(req.headers['x-baton-signature']),
        token: String(req.headers['x-a2a-notification-token']),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server };
}

/**
 * The task states the received webhooks carry, in order; each must be signed with `secret` (and not with
 * another) and be about the task `taskId`.
 */
export function pushedStates(received: ReceivedPush[], secret: string, taskId: string): string[] {
  return received.map((r) => {
    const [t, sig] = r.signature.split(',').map((kv) => kv.split('=')[1]!);
    expect(sig).toBe(pushSignature(secret, Number(t), r.body));
    expect(sig).not.toBe(pushSignature('another-secret-value', Number(t), r.body));
    const json = JSON.parse(r.body) as {
      task: { id: string; status: { state: string }; artifacts?: { parts: { text?: string }[] }[] };
    };
    expect(json.task.id).toBe(taskId);
    return json.task.status.state;
  });
}

/** The text of the answer artifact in the last webhook received. */
export function pushedAnswer(received: ReceivedPush[]): string | undefined {
  const { task } = JSON.parse(received.at(-1)!.body) as {
    task: { artifacts: { artifactId: string; parts: { text?: string }[] }[] };
  };
  return task.artifacts.find((a) => a.artifactId === 'answer')?.parts[0]?.text;
}
