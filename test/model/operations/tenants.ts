/**
 * Tenants: `tenant_cross` reaches for the harness's chains (which belong to no tenant) with the
 * token of a tenant's approver, through the service in process: every read (the run, its audit,
 * its events), every list (inbox, approvals) and every decision must answer as if the chain did not
 * exist (404, or not listed), and a waiting approval must still wait; the same reads with a token
 * without a tenant find the chain. `tenant_cross_mcp` does the same through the service's MCP
 * tools (read_audit, list_waiting, send_message to a conversation, decide). The invariant: no read,
 * message or decision crosses tenants.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { createBatonApp, type ServiceApp } from '../../../src/server';
import { broken, clip, operation, sleep, type Harness } from '../harness';
import { stillWaiting, waiting, waitingFor } from '../waiting';

const BASE = 'http://baton.model';
// Both are "alice", whom the team's policies name: only the tenant tells them apart.
const TOKENS = { tenant: 'model-acme-alice-token', none: 'model-plain-alice-token' } as const;
const apps = new WeakMap<Harness, ServiceApp>();

function appOf(h: Harness): ServiceApp {
  let app = apps.get(h);
  if (!app) {
    const tokens = [
      { token: TOKENS.tenant, identity: 'alice', roles: ['admin' as const], tenant: 'acme' },
      { token: TOKENS.none, identity: 'alice', roles: ['admin' as const] },
    ];
    app = createBatonApp({ baton: h.baton, auth: { tokens }, metrics: false, log: () => undefined });
    apps.set(h, app);
  }
  return app;
}

/** `who`'s request; a read answered 503 ("try again shortly": a worker coming back) is asked again, as its advice says. */
async function call(
  h: Harness,
  who: keyof typeof TOKENS,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  for (let tries = 1; ; tries++) {
    const answer = await callOnce(h, who, method, path, body);
    if (answer.status !== 503 || method !== 'GET' || tries >= 10) return answer;
    await sleep(1_000);
  }
}

async function callOnce(
  h: Harness,
  who: keyof typeof TOKENS,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await appOf(h).fetch(
    new Request(`${BASE}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKENS[who]}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  );
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

const CROSS = 'no-read-or-decision-crosses-tenants';

async function cross(h: Harness, p: { root: number; decide: boolean; approval: number }): Promise<void> {
  const w = p.decide ? waitingFor(h.model, p.approval) : undefined;
  const open = h.model.roots.filter((r) => r.status === 'open' && r.kind === 'chain');
  const root = w?.root ?? open[p.root % Math.max(open.length, 1)];
  if (!root) return;
  const id = encodeURIComponent(root.id);
  for (const path of [`/v1/runs/${id}`, `/v1/runs/${id}/audit`]) {
    const answer = await call(h, 'tenant', 'GET', path);
    if (answer.status !== 404)
      broken(
        h,
        CROSS,
        `a token of tenant acme read ${path} of a chain of no tenant: ${answer.status} ${clip(JSON.stringify(answer.json), 160)}`,
      );
  }
  const own = await call(h, 'none', 'GET', root.kind === 'chain' ? `/v1/runs/${id}` : `/v1/conversations/${id}`);
  if (own.status !== 200)
    broken(
      h,
      CROSS,
      `a token without a tenant could not read its own chain ${root.id}: ${own.status} ${clip(JSON.stringify(own.json), 160)}`,
    );
  for (const path of ['/v1/inbox?for=all', '/v1/approvals']) {
    const listed = (await call(h, 'tenant', 'GET', path)).json as { approvals?: { workflowId: string }[] };
    const seen = (listed.approvals ?? []).filter(
      (a) => a.workflowId === root.id || a.workflowId.startsWith(`${root.id}/`),
    );
    if (seen.length > 0)
      broken(
        h,
        CROSS,
        `${path} as tenant acme listed ${seen.length} approval(s) of chain ${root.id}, which has no tenant`,
      );
  }
  if (!w) return;
  const decided = await call(h, 'tenant', 'POST', `/v1/runs/${id}/approvals/${encodeURIComponent(w.p.handoffId)}`, {
    decision: 'approve',
    comment: 'across tenants',
  });
  if (decided.status !== 404)
    broken(
      h,
      CROSS,
      `a token of tenant acme decided ${w.p.handoffId} in ${root.id} (no tenant): ${decided.status} ${clip(JSON.stringify(decided.json), 160)}`,
    );
  await stillWaiting(h, w, 'a decision across tenants');
}

type ToolAnswer = { isError?: boolean; content: { text?: string }[]; structuredContent?: Record<string, unknown> };

/** `who`'s MCP client on the app in process. */
async function mcpAs(h: Harness, who: keyof typeof TOKENS): Promise<McpClient> {
  const fetchAs: typeof fetch = (input, init) => {
    const request = new Request(input instanceof Request ? input : String(input), init);
    request.headers.set('authorization', `Bearer ${TOKENS[who]}`);
    return Promise.resolve(appOf(h).fetch(request));
  };
  const client = new McpClient({ name: 'model-tenants', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), { fetch: fetchAs }));
  return client;
}

async function crossByMcp(h: Harness, p: { root: number; decide: boolean; approval: number }): Promise<void> {
  const w = p.decide ? waitingFor(h.model, p.approval) : undefined;
  const open = h.model.roots.filter((r) => r.status === 'open');
  const root = w?.root ?? open[p.root % Math.max(open.length, 1)];
  if (!root) return;
  const [tenant, none] = await Promise.all([mcpAs(h, 'tenant'), mcpAs(h, 'none')]);
  const call = async (client: McpClient, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as ToolAnswer;
  try {
    if (root.kind === 'chain') {
      const audit = await call(tenant, 'read_audit', { workflowId: root.id });
      if (!audit.isError || !audit.content[0]?.text?.startsWith('404 '))
        broken(
          h,
          CROSS,
          `MCP read_audit as tenant acme read chain ${root.id} of no tenant: ${clip(audit.content[0]?.text ?? '', 160)}`,
        );
      let own = await call(none, 'read_audit', { workflowId: root.id });
      for (let tries = 1; own.isError && own.content[0]?.text?.startsWith('503 ') && tries < 10; tries++) {
        await sleep(1_000);
        own = await call(none, 'read_audit', { workflowId: root.id });
      }
      if (own.isError)
        broken(
          h,
          CROSS,
          `MCP read_audit without a tenant could not read its own chain ${root.id}: ${clip(own.content[0]?.text ?? '', 160)}`,
        );
    } else {
      // Refused before anything is sent: nothing reaches the conversation, so the model's own view of it stands.
      const sent = await call(tenant, 'send_message', {
        message: 'across tenants',
        conversationId: root.id,
        agent: root.agent,
        waitSeconds: 0,
      });
      if (!sent.isError || !/^(400|404) /.test(sent.content[0]?.text ?? ''))
        broken(
          h,
          CROSS,
          `MCP send_message as tenant acme reached conversation ${root.id} of no tenant: ${clip(sent.content[0]?.text ?? JSON.stringify(sent.structuredContent), 160)}`,
        );
    }
    const listed =
      (
        (await call(tenant, 'list_waiting', {})).structuredContent as
          { approvals?: { workflowId: string }[] } | undefined
      )?.approvals ?? [];
    const seen = listed.filter((a) => a.workflowId === root.id || a.workflowId.startsWith(`${root.id}/`));
    if (seen.length > 0)
      broken(
        h,
        CROSS,
        `MCP list_waiting as tenant acme listed ${seen.length} approval(s) of ${root.id}, which has no tenant`,
      );
    if (!w) return;
    const decided = await call(tenant, 'decide', {
      workflowId: root.id,
      approvalId: w.p.handoffId,
      decision: 'approve',
      comment: 'across tenants',
      waitSeconds: 0,
    });
    if (!decided.isError || !decided.content[0]?.text?.startsWith('404 '))
      broken(
        h,
        CROSS,
        `MCP decide as tenant acme decided ${w.p.handoffId} in ${root.id} (no tenant): ${clip(decided.content[0]?.text ?? '', 160)}`,
      );
    await stillWaiting(h, w, 'an MCP decision across tenants');
  } finally {
    await Promise.all([tenant.close(), none.close()]);
  }
}

export const tenantOperations = [
  operation({
    name: 'tenant_cross',
    // The service's surfaces, as the protocols' operations are.
    group: 'protocols',
    weight: 2,
    params: fc.record({ root: fc.nat(), decide: fc.boolean(), approval: fc.nat() }),
    applies: (m) => m.roots.some((r) => r.status === 'open' && r.kind === 'chain'),
    run: (h, p) => cross(h, p.decide && waiting(h.model).length > 0 ? p : { ...p, decide: false }),
  }),
  operation({
    name: 'tenant_cross_mcp',
    group: 'protocols',
    weight: 2,
    params: fc.record({ root: fc.nat(), decide: fc.boolean(), approval: fc.nat() }),
    applies: (m) => m.roots.some((r) => r.status === 'open'),
    run: (h, p) => crossByMcp(h, p.decide && waiting(h.model).length > 0 ? p : { ...p, decide: false }),
  }),
];
