/**
 * `npm run example:web-chat`: the web chat against the support team, with everything it needs —
 * the app built with Vite, a Temporal dev server (`baton dev`, unless TEMPORAL_ADDRESS is set or
 * one answers on 127.0.0.1:7233), the team's worker, and baton's HTTP service with the app beside it.
 * Prints where to open the chat (as alice, who chats and approves handoffs) and the approvals
 * (as the manager, who decides refunds above $100). Ctrl-C stops it all.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import type { Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { connectBaton, TemporalConnectionError } from 'baton-agents';
import { ensureSearchAttributes } from 'baton-agents/worker';
import { authOptionsFromEnv, type AuthOptions } from 'baton-agents/server';
import { buildWebChat } from './build';
import { serveWebChat } from './server';
import { MANAGER, team } from './team';
import { createWebChatWorker } from './worker';

const ROOT = path.resolve(__dirname, '../..');
const LOCAL_TEMPORAL = '127.0.0.1:7233';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  console.log('web chat: building the app (Vite)…');
  const dist = await buildWebChat();
  const dev = await temporal();
  const baton = await untilConnected();
  // The inbox reads baton's search attributes: a server `baton dev` did not start may not have them yet.
  await ensureSearchAttributes(baton.client.connection as Connection);
  const worker = await createWebChatWorker({
    connection: await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! }),
    taskQueue: baton.taskQueue,
  });
  const running = worker.run();
  const { auth, links } = tokens();
  const port = process.env.PORT ? Number(process.env.PORT) : 8080;
  const server = await serveWebChat({ baton, auth, dist, port, agents: team.ids });
  console.log(`web chat: the chat         ${server.chatUrl}${links.chat}`);
  console.log(
    `web chat: as the manager   ${server.chatUrl}${links.manager}   (the inbox beside the chat decides refunds above $100)`,
  );
  console.log(
    `web chat: approvals page   ${server.url}/   (the same service as \`baton serve\`; sign in with the manager's token)`,
  );
  console.log('web chat: say "Please refund order 1077, the espresso machine stopped working." — Ctrl-C stops');
  await Promise.race([new Promise((resolve) => process.once('SIGINT', resolve).once('SIGTERM', resolve)), running]);
  console.log('web chat: stopping');
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await Promise.all([server.close(), running.catch(() => undefined)]);
  dev?.removeAllListeners('exit').kill('SIGINT');
  // The client's connection and the service's timers would keep the process up.
  process.exit(0);
}

/** TEMPORAL_ADDRESS, or a server on 127.0.0.1:7233, or one started now with `baton dev` (the process, to stop it). */
async function temporal(): Promise<ChildProcess | undefined> {
  if (process.env.TEMPORAL_ADDRESS) return undefined;
  process.env.TEMPORAL_ADDRESS = LOCAL_TEMPORAL;
  if (await answers(LOCAL_TEMPORAL)) {
    console.log(`web chat: using the Temporal server at ${LOCAL_TEMPORAL}`);
    return undefined;
  }
  const dev = spawn(process.execPath, [path.join(ROOT, 'bin/baton.js'), 'dev'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  dev.once('exit', (code) => {
    console.error(`web chat: \`baton dev\` exited (${code}); set TEMPORAL_ADDRESS to a Temporal server to use instead`);
    process.exit(1);
  });
  return dev;
}

/** The service's client, once the Temporal server answers (a dev server takes a few seconds to start). */
async function untilConnected(): Promise<Awaited<ReturnType<typeof connectBaton>>> {
  for (const deadline = Date.now() + 120_000; ; await new Promise((r) => setTimeout(r, 500))) {
    try {
      return await connectBaton();
    } catch (err) {
      if (!(err instanceof TemporalConnectionError) || Date.now() > deadline) throw err;
    }
  }
}

/** The tokens in the environment (BATON_TOKENS, …), else one for alice and one for the manager, made for this run. */
function tokens(): { auth: AuthOptions; links: { chat: string; manager: string } } {
  const configured = authOptionsFromEnv();
  if (configured) return { auth: configured, links: { chat: '', manager: '' } };
  const alice = randomBytes(18).toString('base64url');
  const manager = randomBytes(18).toString('base64url');
  const auth: AuthOptions = {
    tokens: [
      { token: alice, identity: 'alice', roles: ['starter', 'approver'] },
      { token: manager, identity: MANAGER, roles: ['approver'] },
    ],
  };
  // The token goes in the fragment, which the browser never sends; the app keeps it for the tab.
  return { auth, links: { chat: `#token=${alice}`, manager: `#token=${manager}` } };
}

function answers(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: Number(port) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
