/**
 * The approvals page's inbox in Chromium, on a real Temporal server and worker: what waits for the
 * signed-in approver across chains, soonest due first with the overdue marked, filtered and paged;
 * similar calls selected and decided in one batch, each outcome shown on its own (a call decided
 * meanwhile is refused, the others apply); a batch signed in the browser signs each decision; and
 * axe-core finds nothing at a phone's width and a desktop's, light and dark, with a selection made.
 */
import { describe, expect, it } from 'vitest';
import { keys } from '../helpers/signing';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { signIn, useBrowser } from './browser';
import { errorsOf, inbox, inboxTeam, listed, start, status, violations } from './pageInbox.fixtures';
import { TOKENS, withService } from './service';

const server = useTemporalServer();
const browser = useBrowser();

describe('the inbox page', () => {
  it(
    'lists what waits for me soonest due first, filters and pages it, and decides similar calls in a batch, each on its own',
    { timeout: 240_000 },
    async () => {
      await withService(server.env, inboxTeam('inbox'), async ({ service, call }) => {
        const refunds: string[] = [];
        for (const who of ['Ada', 'Bo', 'Cy', 'Di', 'Ed'])
          refunds.push(await start(call, 'refunds', `Refund order A1 for ${who}.`));
        const charge = await start(call, 'charger', 'Charge card 4242.');
        const closing = await start(call, 'closer', 'Close acme.');
        const listedByApi = await waitFor(
          () => inbox(call, TOKENS.alice, 'inbox'),
          // The charge's second has passed, so the page lists it overdue from the start.
          (p) => p.total === 6 && p.approvals.some((a) => a.workflowId === charge && a.overdue),
        );
        // Refunds without a deadline come oldest asked first: the order their calls were asked, not started.
        refunds.sort(
          (x, y) =>
            listedByApi.approvals.findIndex((a) => a.workflowId === x) -
            listedByApi.approvals.findIndex((a) => a.workflowId === y),
        );
        const asked = listedByApi.approvals.slice(1).map((a) => a.requestedAt);
        expect(asked).toEqual([...asked].sort());

        const page = await browser().newPage({ viewport: { width: 1100, height: 900 } });
        const errors = await errorsOf(page);
        await signIn(page, `${service.url}/?team=inbox&limit=5`, TOKENS.alice);
        // Soonest due first: the overdue charge leads, marked; then the refunds, oldest first; bob's call is not mine.
        await expect.poll(() => listed(page), { timeout: 15_000 }).toEqual([charge, ...refunds.slice(0, 4)]);
        const first = page.locator('#approvals > .card').first();
        expect(await first.getAttribute('data-overdue')).toBe('true');
        expect(await first.locator('.due').textContent()).toMatch(/^Overdue, was due .+ ago$/);
        expect(await page.locator('.page-status').textContent()).toBe('Page 1: 1–5 of 6, soonest due first');
        await page.getByRole('button', { name: 'Next page' }).click();
        await expect.poll(() => listed(page)).toEqual([refunds[4]]);
        expect(await page.locator('.page-status').textContent()).toBe('Page 2: 6–6 of 6, soonest due first');
        expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
        await page.getByRole('button', { name: 'Previous page' }).click();
        await expect.poll(() => listed(page)).toEqual([charge, ...refunds.slice(0, 4)]);

        // Filters narrow the list, and a filtered inbox is a link.
        await page.getByLabel('Overdue only', { exact: true }).check();
        await expect.poll(() => listed(page)).toEqual([charge]);
        expect(new URL(page.url()).searchParams.get('overdue')).toBe('true');
        await page.getByLabel('Overdue only', { exact: true }).uncheck();
        await page.getByLabel('Tool', { exact: true }).fill('issueRefund');
        await page.getByLabel('Search', { exact: true }).fill(refunds[2]!);
        await page.getByRole('button', { name: 'Apply' }).click();
        await expect.poll(() => listed(page)).toEqual([refunds[2]]);
        await page.getByLabel('Search', { exact: true }).fill('');
        await page.getByLabel('Agent', { exact: true }).fill('charger');
        await page.getByRole('button', { name: 'Apply' }).click();
        await expect
          .poll(() => page.locator('#approvals + p').textContent())
          .toBe('Nothing waiting matches these filters.');
        await page.getByLabel('Agent', { exact: true }).fill('');
        await page.getByLabel('Whose', { exact: true }).selectOption('all');
        await expect.poll(() => listed(page)).toEqual(refunds);
        await page.getByLabel('Tool', { exact: true }).fill('');
        await page.getByLabel('Per page', { exact: true }).selectOption('25');
        const everyone = (await call('GET', '/v1/inbox?for=all&team=inbox', { token: TOKENS.admin })).body as {
          approvals: { workflowId: string }[];
        };
        expect(everyone.approvals.map((a) => a.workflowId).sort()).toEqual([charge, ...refunds, closing].sort());
        await expect.poll(() => listed(page)).toEqual(everyone.approvals.map((a) => a.workflowId));
        // Bob's call is listed for everyone, and alice may not select it.
        expect(await page.locator(`.card[data-key^="${closing}/"] .pick-box`).isDisabled()).toBe(true);
        await page.getByLabel('Whose', { exact: true }).selectOption('me');
        await expect.poll(() => listed(page)).toEqual([charge, ...refunds]);

        // Select similar: every refund, nothing else; then leave two out.
        await page.locator(`.card[data-key^="${refunds[0]}/"]`).getByRole('button', { name: 'Select similar' }).click();
        expect(await page.locator('.batch-summary').textContent()).toBe(
          '5 selected: tool issueRefund (amount, orderId)',
        );
        expect(await page.locator(`.card[data-key^="${charge}/"] .pick-box`).isDisabled()).toBe(true);
        for (const id of refunds.slice(3))
          await page.locator(`.card[data-key^="${id}/"]`).locator('.pick-box').uncheck();
        await page.getByLabel('Comment for each decision', { exact: true }).fill('batch of three');
        await page.getByRole('button', { name: 'Approve 3' }).click();
        await expect
          .poll(() => page.locator('.batch-results [role=status]').textContent(), { timeout: 20_000 })
          .toBe('3 of 3 decisions approved.');
        expect(await page.locator('.outcomes li.applied').count()).toBe(3);
        // Exactly the selected chains went on, each to its own answer; the others still wait.
        for (const id of refunds.slice(0, 3))
          await waitFor(
            () => status(call, id),
            (s) => s.status === 'completed' && s.output === 'Refund issued.',
          );
        for (const id of [...refunds.slice(3), charge])
          expect((await status(call, id)).status).toBe('awaiting_approval');
        await expect.poll(() => listed(page), { timeout: 15_000 }).toEqual([charge, ...refunds.slice(3)]);
        const audit = (await call('GET', `/v1/runs/${refunds[0]}/audit`, { token: TOKENS.viewer })).body as {
          events: { kind: string; approver?: string; comment?: string }[];
        };
        expect(audit.events.filter((e) => e.kind === 'approval_decided')).toMatchObject([
          { approver: 'alice', comment: 'batch of three' },
        ]);

        // A call decided elsewhere while the page looked away (its live stream cut): that one is refused, the other applies.
        await page.route('**/v1/approvals/events', (route) => route.abort());
        await page.reload();
        await expect.poll(() => listed(page), { timeout: 15_000 }).toEqual([charge, ...refunds.slice(3)]);
        await page.locator(`.card[data-key^="${refunds[3]}/"]`).getByRole('button', { name: 'Select similar' }).click();
        expect(await page.locator('.batch-summary').textContent()).toBe(
          '2 selected: tool issueRefund (amount, orderId)',
        );
        const [elsewhere] = (await call('GET', `/v1/inbox?q=${refunds[4]}`, { token: TOKENS.alice })).body
          .approvals as { approvalId: string }[];
        expect(
          (
            await call('POST', `/v1/runs/${refunds[4]}/approvals/${elsewhere!.approvalId}`, {
              token: TOKENS.alice,
              body: { decision: 'reject', comment: 'not this one' },
            })
          ).status,
        ).toBe(200);
        await page.getByRole('button', { name: 'Approve 2' }).click();
        await expect
          .poll(() => page.locator('.batch-results [role=status]').textContent(), { timeout: 20_000 })
          .toBe('1 of 2 decisions approved; 1 refused.');
        expect(await page.locator(`.outcomes li.applied[data-key^="${refunds[3]}/"]`).textContent()).toContain(
          'Approved: tool issueRefund by refunds in chain',
        );
        expect(await page.locator(`.outcomes li.refused[data-key^="${refunds[4]}/"]`).textContent()).toMatch(
          new RegExp(
            `^Refused: tool issueRefund by refunds in chain ${refunds[4]} — no approval .* is waiting in chain ${refunds[4]}$`,
          ),
        );
        await waitFor(
          () => status(call, refunds[3]!),
          (s) => s.status === 'completed',
        );
        // Rejected elsewhere: the chain's answer is the agent's after the rejection, and it was decided once.
        const rejected = (await call('GET', `/v1/runs/${refunds[4]}/audit`, { token: TOKENS.viewer })).body as {
          events: { kind: string; decision?: string; outcome?: string }[];
        };
        expect(rejected.events.filter((e) => e.kind === 'approval_decided')).toHaveLength(1);
        expect(errors).toEqual([]);
        await page.close();
      });
    },
  );

  it(
    'signs each decision of a batch with the key the approver holds in the browser',
    { timeout: 180_000 },
    async () => {
      await withService(server.env, inboxTeam('signing'), async ({ service, call }) => {
        const chains = [
          await start(call, 'signer', 'Refund S1 for Ada.'),
          await start(call, 'signer', 'Refund S1 for Bo.'),
        ];
        await waitFor(
          () => inbox(call, TOKENS.alice, 'signing'),
          (p) => p.total === 2,
        );
        const page = await browser().newPage({ viewport: { width: 1100, height: 900 } });
        const errors = await errorsOf(page);
        await signIn(page, `${service.url}/?team=signing`, TOKENS.alice);
        await page.locator('details.signing summary').click();
        await page.getByLabel('Private key (JWK)').fill(JSON.stringify(keys.alice.jwk));
        await page.getByRole('button', { name: 'Import key' }).click();
        await expect.poll(() => page.locator('.key-status').textContent()).toBe('alice-1 (held in this browser)');
        await expect.poll(() => listed(page), { timeout: 15_000 }).toHaveLength(2);
        await page.locator('#approvals > .card').first().getByRole('button', { name: 'Select similar' }).click();
        await page.getByLabel('Comment for each decision', { exact: true }).fill('signed batch');
        await page.getByRole('button', { name: 'Approve 2' }).click();
        await expect
          .poll(() => page.locator('.batch-results [role=status]').textContent(), { timeout: 20_000 })
          .toBe('2 of 2 decisions approved.');
        expect(await page.locator('.outcomes li.applied').first().textContent()).toContain(', signed with alice-1');
        for (const id of chains) {
          await waitFor(
            () => status(call, id),
            (s) => s.status === 'completed' && s.output === 'Signed refund issued.',
          );
          const audit = (await call('GET', `/v1/runs/${id}/audit`, { token: TOKENS.viewer })).body as {
            events: { kind: string; identity?: unknown; signature?: string; comment?: string }[];
          };
          const decided = audit.events.filter((e) => e.kind === 'approval_decided');
          expect(decided).toMatchObject([
            {
              identity: { method: 'signed', kid: 'alice-1', keySource: 'team' },
              comment: 'signed batch',
              signature: expect.stringMatching(/^eyJ/),
            },
          ]);
        }
        // Each signature names its own chain and call: none is another's.
        const signatures = await Promise.all(
          chains.map(
            async (id) =>
              (
                (await call('GET', `/v1/runs/${id}/audit`, { token: TOKENS.viewer })).body.events as {
                  kind: string;
                  signature?: string;
                }[]
              ).find((e) => e.kind === 'approval_decided')!.signature!,
          ),
        );
        const payloads = signatures.map(
          (s) => JSON.parse(Buffer.from(s.split('.')[1]!, 'base64url').toString()) as { workflowId: string },
        );
        expect(payloads.map((p) => p.workflowId)).toEqual(chains);
        expect(errors).toEqual([]);
        await page.close();
      });
    },
  );

  it(
    'has no axe-core violations at 390 px and 1440 px, light and dark, with items listed and a batch selected',
    { timeout: 240_000 },
    async () => {
      await withService(server.env, inboxTeam('axe'), async ({ service, call }) => {
        for (const who of ['Ada', 'Bo']) await start(call, 'refunds', `Refund order A1 for ${who}.`);
        await start(call, 'charger', 'Charge card 4242.');
        await waitFor(
          () => inbox(call, TOKENS.alice, 'axe'),
          (p) => p.total === 3,
        );
        const found: Record<string, string[]> = {};
        for (const width of [390, 1440]) {
          for (const colorScheme of ['light', 'dark'] as const) {
            // axe-core is injected as a script of the test's own, which the page's policy would refuse.
            const context = await browser().newContext({
              viewport: { width, height: 900 },
              colorScheme,
              bypassCSP: true,
            });
            const page = await context.newPage();
            await signIn(page, `${service.url}/?team=axe`, TOKENS.alice);
            await expect.poll(() => listed(page), { timeout: 15_000 }).toHaveLength(3);
            await page.locator('.card[data-overdue="true"]').waitFor();
            found[`inbox ${width} ${colorScheme}`] = await violations(page);
            await page
              .locator('.card[data-overdue="false"]')
              .first()
              .getByRole('button', { name: 'Select similar' })
              .click();
            await page.locator('.batch').waitFor();
            found[`selection ${width} ${colorScheme}`] = await violations(page);
            await context.close();
          }
        }
        expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
      });
    },
  );
});
