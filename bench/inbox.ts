/**
 * The inbox at scale: `npx tsx bench/inbox.ts [--chains 10000] [--decisions 50]` (the full size takes
 * a while to fill: each chain is started and reaches its approval on one worker). On a dev server of
 * its own, `--chains` chains wait for alice's approval of a handoff (due in a day); then, on the same
 * server in the same run:
 * - the inbox (`baton.inbox({for: 'alice'})`, a visibility query over the approval search attributes,
 *   all matches read and sorted by due time, one page returned), and every page at 500 a page;
 * - baselines: a raw visibility list of the same chains with their memos (the floor any listing
 *   pays), and the listing `GET /v1/approvals` served before the inbox (visibility, then a query per
 *   chain for its handoffs so far);
 * - decision → chain resumed: alice approves `--decisions` chains one at a time; the time from
 *   sending the decision to the chain's workflow having moved past its wait (its BatonStatus no
 *   longer awaiting_approval, read from describe) and to its result, p50 and p95.
 * Targets (issue: approval operations): 10,000 listed in ≤ 1 s; decision → resumed p50 ≤ 250 ms.
 */
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Baton } from '../src/client/baton';
import { BatonStatusAttribute } from '../src/common/messages';
import { startDevServer } from '../src/devserver/server';
import { serveBaton } from '../src/server';
import { createWorker } from '../src/worker';
import { percentile, round, table } from './lib';
import { approvalTeam } from './teams';

const { values } = parseArgs({
  options: { chains: { type: 'string', default: '10000' }, decisions: { type: 'string', default: '50' } },
});
const chains = Number(values.chains);
const decisions = Math.min(Number(values.decisions), chains);
const QUEUE = 'bench-inbox';

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = await startDevServer();
  const worker = await createWorker({
    team: approvalTeam({ approvers: ['alice'], timeout: '1 day' }),
    connection: env.nativeConnection,
    taskQueue: QUEUE,
    worker: { maxCachedWorkflows: 2_000 },
  });
  const baton = new Baton({ client: env.client, taskQueue: QUEUE });
  try {
    await worker.runUntil(async () => {
      const waitingQuery = `TaskQueue = "${QUEUE}" AND ${BatonStatusAttribute.name} = "awaiting_approval" AND ExecutionStatus = "Running"`;
      const waiting = async () => (await env.client.workflow.count(waitingQuery)).count;
      const started: string[] = [];
      for (let i = 0; i < chains; i += 50) {
        const runs = await Promise.all(Array.from({ length: Math.min(50, chains - i) }, () => baton.start('a', 'go')));
        started.push(...runs.map((r) => r.workflowId));
      }
      while ((await waiting()) < chains) await new Promise((r) => setTimeout(r, 500));
      await new Promise((r) => setTimeout(r, 1_000));

      await baton.inbox({ for: 'alice', limit: 1 }); // warm-up: the connection and the data converter's first use
      const inbox = await timed(() => baton.inbox({ for: 'alice' }));
      const allPages = await timed(async () => {
        let listed = 0;
        let pageToken: string | undefined;
        do {
          const page = await baton.inbox({ for: 'alice', limit: 500, ...(pageToken ? { pageToken } : {}) });
          listed += page.approvals.length;
          pageToken = page.nextPageToken;
        } while (pageToken);
        return listed;
      });
      const raw = await timed(async () => {
        let n = 0;
        for await (const wf of env.client.workflow.list({ query: waitingQuery, pageSize: 1000 })) if (wf.memo) n++;
        return n;
      });
      const service = await serveBaton({
        baton,
        port: 0,
        host: '127.0.0.1',
        metrics: false,
        auth: { tokens: [{ token: 'bench-alice-token', identity: 'alice', roles: ['approver'] }] },
        log: () => undefined,
      });
      const old = await timed(async () => {
        const res = await fetch(`${service.url}/v1/approvals`, {
          headers: { authorization: 'Bearer bench-alice-token' },
        });
        // At this size the old listing may not finish within the service's own deadline: say so rather than a count.
        return res.ok ? ((await res.json()) as { approvals: unknown[] }).approvals.length : `HTTP ${res.status}`;
      });
      await service.close();

      const resumed: number[] = [];
      const finished: number[] = [];
      for (const workflowId of started.slice(0, decisions)) {
        const handle = env.client.workflow.getHandle(workflowId);
        const t = performance.now();
        await baton.approve(workflowId, { approver: 'alice' });
        while ((await handle.describe()).typedSearchAttributes.get(BatonStatusAttribute) === 'awaiting_approval')
          await new Promise((r) => setTimeout(r, 5));
        resumed.push(performance.now() - t);
        await handle.result();
        finished.push(performance.now() - t);
      }

      console.log(
        `\nThe inbox with ${chains} chains waiting for approval (ms)\n${table([
          {
            measure: 'inbox: first page (50), all matches read and sorted',
            ms: round(inbox.ms, 1),
            listed: `${inbox.value.approvals.length} of ${inbox.value.total}`,
          },
          { measure: 'inbox: every page, 500 a page', ms: round(allPages.ms, 1), listed: allPages.value },
          { measure: 'floor: raw visibility list with memos', ms: round(raw.ms, 1), listed: raw.value },
          {
            measure: 'before: GET /v1/approvals (visibility + a query per chain)',
            ms: round(old.ms, 1),
            listed: old.value,
          },
        ])}`,
      );
      console.log(
        `\nDecision → chain resumed, ${decisions} decisions one at a time (ms)\n${table([
          {
            measure: 'decision → past its wait (BatonStatus)',
            p50: round(percentile(resumed, 50), 1),
            p95: round(percentile(resumed, 95), 1),
          },
          {
            measure: 'decision → chain ended (its next model turn included)',
            p50: round(percentile(finished, 50), 1),
            p95: round(percentile(finished, 95), 1),
          },
        ])}`,
      );
      console.log('\nTargets: 10,000 listed in ≤ 1000 ms; decision → resumed p50 ≤ 250 ms.');
    });
  } finally {
    await env.teardown();
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
