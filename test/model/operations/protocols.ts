/**
 * Decisions through the protocols the service speaks: an A2A client's reply to a task in
 * `input-required`, and an MCP client's `decide`, each under a bearer token of the service (in
 * process, through the app's `fetch`). An approver the policy names decides; one it does not is
 * refused and the approval still waits.
 */
import { randomUUID } from 'node:crypto';
import { AgentCard, Role, type Message } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { createBatonApp, type ServiceApp } from '../../../src/server';
import { broken, clip, errorText, operation, type Harness } from '../harness';
import { stillWaiting, taken, waiting, waitingFor, type Waiting } from '../waiting';

const BASE = 'http://baton.model';
const TOKENS = { alice: 'model-alice-token', mallory: 'model-mallory-token' } as const;
const apps = new WeakMap<Harness, ServiceApp>();

function appOf(h: Harness): ServiceApp {
  let app = apps.get(h);
  if (!app) {
    app = createBatonApp({
      baton: h.baton,
      auth: {
        tokens: [
          { token: TOKENS.alice, identity: 'alice', roles: ['approver'] },
          { token: TOKENS.mallory, identity: 'mallory', roles: ['approver'] },
        ],
      },
      metrics: false,
      log: () => undefined,
    });
    apps.set(h, app);
  }
  return app;
}

/** A fetch that reaches the app in process, with `who`'s token. */
function fetchAs(h: Harness, who: keyof typeof TOKENS): typeof fetch {
  return (input, init) => {
    const request = new Request(input instanceof Request ? input : String(input), init);
    request.headers.set('authorization', `Bearer ${TOKENS[who]}`);
    return Promise.resolve(appOf(h).fetch(request));
  };
}

async function decideByA2A(h: Harness, w: Waiting, who: keyof typeof TOKENS): Promise<void> {
  const fetchImpl = fetchAs(h, who);
  const card = AgentCard.fromJSON(await (await fetchImpl(`${BASE}/.well-known/agent-card.json`)).json());
  const client = await new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  ).createFromAgentCard(card);
  const message: Message = {
    messageId: randomUUID(),
    contextId: '',
    taskId: w.root.id,
    role: Role.ROLE_USER,
    parts: [
      {
        content: { $case: 'data', value: { decision: 'approve', approvalId: w.p.handoffId, comment: 'by A2A' } },
        metadata: undefined,
        filename: '',
        mediaType: 'application/json',
      },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  await client.sendMessage({
    tenant: '',
    message,
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
    metadata: undefined,
  });
}

async function decideByMcp(h: Harness, w: Waiting, who: keyof typeof TOKENS): Promise<void> {
  const client = new McpClient({ name: 'model', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), { fetch: fetchAs(h, who) }));
  try {
    const answer = (await client.callTool({
      name: 'decide',
      arguments: {
        workflowId: w.root.id,
        approvalId: w.p.handoffId,
        decision: 'approve',
        comment: 'by MCP',
        waitSeconds: 0,
      },
    })) as { isError?: boolean; content: { text?: string }[] };
    if (answer.isError) throw new Error(answer.content[0]?.text ?? 'refused');
  } finally {
    await client.close();
  }
}

export const protocolOperations = [
  operation({
    name: 'protocol_decide',
    group: 'protocols',
    weight: 3,
    params: fc.record({
      approval: fc.nat(),
      via: fc.constantFrom<'a2a' | 'mcp'>('a2a', 'mcp'),
      who: fc.constantFrom<keyof typeof TOKENS>('alice', 'alice', 'mallory'),
    }),
    // The service signs nothing here: approvals that need a signature are decided elsewhere.
    applies: (m) => waiting(m).some((w) => !w.p.requireSignature),
    async run(h, p) {
      const w = waitingFor(h.model, p.approval, (x) => !x.p.requireSignature)!;
      const may = w.p.approvers === undefined || w.p.approvers.includes(p.who);
      const outcome = await (p.via === 'a2a' ? decideByA2A(h, w, p.who) : decideByMcp(h, w, p.who)).then(
        () => 'taken',
        (err: unknown) => errorText(err),
      );
      if (may && outcome === 'taken') return taken(w, { handoffId: w.p.handoffId, outcome: 'approved' }, false);
      if (may) {
        // A decision that lost a race (the chain ended, a kill moved it) is refused; the approval is then no longer
        // waiting. So is a second vote of one approver (a staged approval alice voted on by signal still waits).
        if (!/no approval .* is waiting|nothing waits|has ended|no task|each approver decides once/.test(outcome))
          broken(
            h,
            'decision-answered',
            `approving ${w.p.handoffId} in ${w.root.id} by ${p.via} failed: ${clip(outcome, 200)}`,
          );
        return;
      }
      if (outcome === 'taken')
        broken(
          h,
          'refusals-change-nothing',
          `${p.who}'s decision of ${w.p.handoffId} in ${w.root.id} by ${p.via} was taken (approvers: ${w.p.approvers?.join(', ')})`,
        );
      await stillWaiting(h, w, `${p.who}'s decision by ${p.via} (${clip(outcome, 120)})`);
    },
  }),
];
