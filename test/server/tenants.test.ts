/**
 * Tenants on a real dev server and real workers: the HTTP service, driven with plain fetch and the
 * tokens of two tenants, keeps each tenant to its own chains (another's is 404), the `temporal` CLI
 * lists by `BatonTenant`, and a worker without one tenant's key fails that tenant's tasks naming the
 * key while the other tenant's chains complete.
 */
import { execFileSync } from 'node:child_process';
import { WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { Baton, defineAgent, scripted, Team } from '../../src';
import { BatonTenant, WorkflowType } from '../../src/common/messages';
import { serveBaton, type StaticToken } from '../../src/server';
import { createWorker } from '../../src/worker';
import { codecClient, encryptionKey } from '../payloads/helpers';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { caller } from './service';
import { refundTeam } from './team';

const server = useTemporalServer();
const acmeKey = encryptionKey('acme-1');
const globexKey = encryptionKey('globex-1');
const BOTH = { tenantKeys: { acme: [acmeKey], globex: [globexKey] } };

const T = {
  acmeStarter: 'acme-starter-token',
  acmeAlice: 'acme-alice-token',
  globexStarter: 'globex-starter-token',
  globexAlice: 'globex-alice-token',
  plainAlice: 'plain-alice-token',
} as const;
// Both tenants have an "alice" whom the policy names: only the tenant tells them apart.
const TOKENS: StaticToken[] = [
  { token: T.acmeStarter, identity: 'acme-ops', roles: ['starter'], tenant: 'acme' },
  { token: T.acmeAlice, identity: 'alice', roles: ['approver'], tenant: 'acme' },
  { token: T.globexStarter, identity: 'globex-ops', roles: ['starter'], tenant: 'globex' },
  { token: T.globexAlice, identity: 'alice', roles: ['approver'], tenant: 'globex' },
  { token: T.plainAlice, identity: 'alice', roles: ['approver'] },
];

/** The ids of the `temporal` CLI's list for `query`. */
function temporalList(query: string): string[] {
  const text = execFileSync(
    process.env.TEMPORAL_CLI_PATH!,
    ['workflow', 'list', '--address', server.env.address, '--query', query, '-o', 'json'],
    { encoding: 'utf8' },
  );
  return (JSON.parse(text || '[]') as { execution: { workflowId: string } }[]).map((w) => w.execution.workflowId);
}

/** The key id a chain's start input was encrypted with, as history holds it. */
async function startKeyId(workflowId: string): Promise<string> {
  const history = await server.env.client.workflow.getHandle(workflowId).fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return Buffer.from(payload?.metadata?.['encryption-key-id'] ?? new Uint8Array()).toString();
}

describe('tenants', () => {
  it("a worker without globex's key fails globex's tasks naming the key, while acme's chains complete; a worker with it then finishes globex's", async () => {
    const queue = taskQueue();
    const team = () =>
      new Team([defineAgent({ id: 'clerk', instructions: 'Answer.', model: scripted([{ text: 'Filed.' }]) })]);
    const baton = new Baton({ client: codecClient(server.env, BOTH), taskQueue: queue });
    const globex = await baton.start('clerk', 'File globex case.', { tenant: 'globex' });
    const acme = [
      await baton.start('clerk', 'File acme case 1.', { tenant: 'acme' }),
      await baton.start('clerk', 'File acme case 2.', { tenant: 'acme' }),
    ];
    expect(globex.workflowId).toMatch(/^globex\//);
    // Each tenant's payloads under its own key.
    expect(await startKeyId(globex.workflowId)).toBe('globex-1');
    expect(await startKeyId(acme[0]!.workflowId)).toBe('acme-1');

    const acmeOnly = await createWorker({
      team: team(),
      connection: server.env.nativeConnection,
      taskQueue: queue,
      codec: { tenantKeys: { acme: [acmeKey] } },
    });
    const failure = await acmeOnly.runUntil(async () => {
      for (const run of acme) expect(await run.result()).toMatchObject({ output: 'Filed.' });
      const failed = await waitFor(
        async () =>
          ((await server.env.client.workflow.getHandle(globex.workflowId).fetchHistory()).events ?? []).find(
            (e) => e.workflowTaskFailedEventAttributes,
          ),
        (e) => e !== undefined,
      );
      return failed?.workflowTaskFailedEventAttributes?.failure?.message;
    });
    expect(failure).toMatch(
      /a payload is encrypted with key "globex-1", which is not configured here \(configured: acme-1\); a tenant's key goes in BATON_TENANT_KEYS as <tenant>\/globex-1:<key>/,
    );
    expect((await globex.handle.describe()).status.name).toBe('RUNNING');

    const both = await createWorker({
      team: team(),
      connection: server.env.nativeConnection,
      taskQueue: queue,
      codec: BOTH,
    });
    expect(await both.runUntil(globex.result())).toMatchObject({ output: 'Filed.' });
    // The acme chain's result, as Temporal keeps it, is acme's key's too.
    const completed = (await server.env.client.workflow.getHandle(acme[0]!.workflowId).fetchHistory()).events?.find(
      (e) => e.workflowExecutionCompletedEventAttributes,
    );
    expect(
      Buffer.from(
        completed?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0]?.metadata?.['encryption-key-id'] ??
          [],
      ).toString(),
    ).toBe('acme-1');
  });

  it('a chain of a tenant whose workflow id lacks the tenant is refused by the workflow, for a client that is not baton', async () => {
    const queue = taskQueue();
    const worker = await createWorker({
      team: refundTeam(),
      connection: server.env.nativeConnection,
      taskQueue: queue,
    });
    const err = await worker.runUntil(
      server.env.client.workflow
        .execute(WorkflowType.HANDOFF_RUN, {
          taskQueue: queue,
          workflowId: `elsewhere-${Date.now()}`,
          args: [{ agent: 'triage', input: 'Refund 42.', options: { tenant: 'acme' } }],
        })
        .catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(String((err as WorkflowFailedError).cause?.message)).toMatch(
      /"options.tenant": a chain of tenant "acme" has a workflow id that begins "acme\/"/,
    );
  });

  it("through the service a tenant's token reads, streams, lists and decides its tenant's chains only; another tenant's is 404; starts stay in the caller's tenant", async () => {
    const queue = taskQueue();
    const baton = new Baton({ client: codecClient(server.env, BOTH), taskQueue: queue });
    const worker = await createWorker({
      team: refundTeam(),
      connection: server.env.nativeConnection,
      taskQueue: queue,
      codec: BOTH,
    });
    await worker.runUntil(async () => {
      const service = await serveBaton({
        baton,
        auth: { tokens: TOKENS },
        port: 0,
        host: '127.0.0.1',
        agents: ['triage', 'refunds'],
        metrics: false,
        approvalsPollMs: 200,
        log: () => undefined,
      });
      try {
        const call = caller(service.url);
        const start = (token: string, body: Record<string, unknown>) =>
          call('POST', '/v1/runs', {
            token,
            body: { agent: 'triage', input: 'My order 42 arrived broken.', ...body },
            headers: { 'idempotency-key': `k-${Math.random()}` },
          });

        // A start goes into the caller's tenant; another tenant, or an id outside the tenant, is refused.
        const a = await start(T.acmeStarter, {});
        const g = await start(T.globexStarter, {});
        expect([a.status, g.status]).toEqual([201, 201]);
        const acmeId: string = a.body.workflowId;
        const globexId: string = g.body.workflowId;
        expect(acmeId).toMatch(/^acme\//);
        expect(globexId).toMatch(/^globex\//);
        const into = await start(T.acmeStarter, { options: { tenant: 'globex' } });
        expect(into.status).toBe(403);
        expect(into.body.detail).toMatch(
          /acme-ops acts for tenant "acme" and may not start a chain of tenant "globex"/,
        );
        const outside = await start(T.acmeStarter, { workflowId: 'plain-id-1' });
        expect(outside.status).toBe(400);
        expect(outside.body.errors).toEqual([
          { path: 'workflowId', message: '"workflowId" must begin "acme/", got "plain-id-1"' },
        ]);
        expect((await call('GET', '/v1/me', { token: T.acmeAlice })).body).toMatchObject({
          name: 'alice',
          tenant: 'acme',
        });

        // Each tenant's inbox and approvals list its own chains only; a caller without a tenant sees neither.
        const inboxIds = async (token: string) =>
          ((await call('GET', '/v1/inbox', { token })).body.approvals as { workflowId: string }[]).map(
            (p) => p.workflowId,
          );
        await waitFor(
          () => inboxIds(T.acmeAlice),
          (ids) => ids.includes(acmeId),
        );
        await waitFor(
          () => inboxIds(T.globexAlice),
          (ids) => ids.includes(globexId),
        );
        expect(await inboxIds(T.acmeAlice)).toEqual([acmeId]);
        expect(await inboxIds(T.globexAlice)).toEqual([globexId]);
        expect(await inboxIds(T.plainAlice)).toEqual([]);
        const listed = (await call('GET', '/v1/approvals', { token: T.acmeAlice })).body.approvals as {
          workflowId: string;
          handoffId: string;
        }[];
        expect(listed.map((p) => p.workflowId)).toEqual([acmeId]);
        const globexApproval = (
          (await call('GET', '/v1/approvals', { token: T.globexAlice })).body.approvals as {
            workflowId: string;
            handoffId: string;
          }[]
        ).find((p) => p.workflowId === globexId)!;

        // Another tenant's chain answers as no chain does: the same status and problem, with nothing of it.
        const missing = await call('GET', `/v1/runs/${encodeURIComponent('acme/no-such-chain')}`, {
          token: T.acmeAlice,
        });
        expect(missing.status).toBe(404);
        const enc = encodeURIComponent(globexId);
        for (const [method, path] of [
          ['GET', `/v1/runs/${enc}`],
          ['GET', `/v1/runs/${enc}/audit`],
          ['GET', `/v1/runs/${enc}/events`],
          ['GET', `/v1/runs/${enc}/stream`],
          ['POST', `/v1/runs/${enc}/steer`],
          ['POST', `/v1/runs/${enc}/approvals/${globexApproval.handoffId}`],
        ] as const) {
          const answer = await call(method, path, {
            token: T.acmeAlice,
            ...(method === 'POST' ? { body: { decision: 'approve', message: 'x' } } : {}),
          });
          expect([path, answer.status, answer.body?.title, answer.body?.detail]).toEqual([
            path,
            404,
            'Not found',
            `no chain ${globexId}`,
          ]);
        }
        expect((await call('GET', `/v1/runs/${enc}`, { token: T.plainAlice })).status).toBe(404);
        // A batch naming another tenant's approval decides nothing of it.
        const batch = await call('POST', '/v1/approvals/batch', {
          token: T.acmeAlice,
          body: { decision: 'approve', approvals: [{ workflowId: globexId, approvalId: globexApproval.handoffId }] },
        });
        expect(batch.body.outcomes).toEqual([
          expect.objectContaining({ workflowId: globexId, ok: false, reason: `no chain ${globexId}` }),
        ]);
        expect(await inboxIds(T.globexAlice)).toEqual([globexId]);

        // The tenant's own approver decides it, and reads it.
        expect((await call('GET', `/v1/runs/${enc}`, { token: T.globexAlice })).status).toBe(200);
        const decided = await call('POST', `/v1/runs/${enc}/approvals/${globexApproval.handoffId}`, {
          token: T.globexAlice,
          body: { decision: 'approve' },
        });
        expect(decided.status).toBe(200);
        expect(await baton.getRun(globexId).result()).toMatchObject({ output: 'Refunded order 42.' });

        // Any Temporal client lists a tenant's chains by BatonTenant; specialists carry it too.
        expect((await baton.client.workflow.getHandle(acmeId).describe()).typedSearchAttributes.get(BatonTenant)).toBe(
          'acme',
        );
        expect(temporalList(`BatonTenant = "acme" AND TaskQueue = "${queue}"`)).toEqual([acmeId]);
        expect(temporalList(`BatonTenant = "globex" AND TaskQueue = "${queue}"`)).toEqual([globexId]);
      } finally {
        await service.close();
      }
    });
  });
});
