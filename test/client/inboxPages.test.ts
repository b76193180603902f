/**
 * Walking the inbox page by page on a real Temporal server and worker: the first page reads what
 * waits now, and the pages after it read the list it read, so a walk costs one visibility read
 * however many pages it has; a first page asked for again reads afresh.
 */
import { describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { toolApprovalTeam } from '../server/team';

const server = useTemporalServer();

/** Count the visibility lists `client` makes, on the real client. */
function countLists(client: Client): { readonly count: number } {
  const seen = { count: 0 };
  const list = client.workflow.list.bind(client.workflow);
  client.workflow.list = (options) => {
    seen.count++;
    return list(options);
  };
  return seen;
}

describe('the inbox, page by page', () => {
  it(
    'reads visibility once for a walk of every page, each approval listed once in due order; a new first page reads again',
    { timeout: 120_000 },
    async () => {
      await withWorker(server.env, toolApprovalTeam(), async (baton) => {
        const started = await Promise.all(
          Array.from({ length: 5 }, (_, i) => baton.start('refunds', `Refund order A1, customer ${i}.`)),
        );
        await waitFor(
          () => baton.inbox({ for: 'alice' }),
          (p) => p.total === 5,
        );
        const lists = countLists(baton.client);

        const walked: string[] = [];
        let pageToken: string | undefined;
        let pages = 0;
        do {
          const page = await baton.inbox({ for: 'alice', limit: 2, ...(pageToken ? { pageToken } : {}) });
          expect(page.total).toBe(5);
          walked.push(...page.approvals.map((a) => a.workflowId));
          pageToken = page.nextPageToken;
          pages++;
        } while (pageToken);
        expect(pages).toBe(3);
        expect(lists.count).toBe(1);
        expect([...walked].sort()).toEqual(started.map((r) => r.workflowId).sort());

        // Another filter is another list: it is read on its own, and does not replace alice's.
        expect((await baton.inbox({ for: 'bob', limit: 2 })).total).toBe(0);
        expect(lists.count).toBe(2);

        // A decision made, a first page asked for again: it reads what waits now.
        await baton.approve(walked[0]!, { approver: 'alice' });
        await waitFor(
          () => baton.inbox({ for: 'alice', limit: 2 }),
          (p) => p.total === 4,
        );
        expect(lists.count).toBeGreaterThan(2);
      });
    },
  );
});
