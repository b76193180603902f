/**
 * What the inbox page tests run and read: a team whose tool calls wait for alice (one overdue a
 * second after it is asked, one signed) and for bob, chains started and read over HTTP, the page's
 * listed chains and its errors, and axe-core's violations on it.
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { defineTool, Team } from '../../src';
import { scriptedAgent } from '../helpers/agents';
import { teamKeys } from '../helpers/signing';
import { TOKENS, type Caller } from './service';
import { issueRefund } from './team';

const AXE = createRequire(__filename).resolve('axe-core/axe.min.js');

const chargeCard = defineTool({
  name: 'chargeCard',
  description: 'Charge a card',
  parameters: z.object({ card: z.string() }),
  needsApproval: { approvers: ['alice'], dueIn: '1 second' },
  execute: ({ card }) => ({ charged: card }),
});

const closeAccount = defineTool({
  name: 'closeAccount',
  description: 'Close an account',
  parameters: z.object({ account: z.string() }),
  needsApproval: { approvers: ['bob'] },
  execute: ({ account }) => ({ closed: account }),
});

const signedRefund = defineTool({
  name: 'signedRefund',
  description: 'Refund, on a signed decision only',
  parameters: z.object({ orderId: z.string() }),
  needsApproval: { approvers: ['alice'], requireSignature: true },
  execute: ({ orderId }) => ({ refunded: orderId }),
});

/** refunds: issueRefund (alice); charger: chargeCard (alice, overdue a second after); closer: closeAccount (bob); signer: signedRefund (alice, signed). */
export function inboxTeam(name: string): Team {
  return new Team(
    [
      scriptedAgent(
        'refunds',
        [
          { toolCalls: [{ name: 'issueRefund', arguments: { orderId: 'A1', amount: 250 } }] },
          { text: 'Refund issued.' },
        ],
        { tools: [issueRefund] },
      ),
      scriptedAgent(
        'charger',
        [{ toolCalls: [{ name: 'chargeCard', arguments: { card: '4242' } }] }, { text: 'Charged.' }],
        { tools: [chargeCard] },
      ),
      scriptedAgent(
        'closer',
        [{ toolCalls: [{ name: 'closeAccount', arguments: { account: 'acme' } }] }, { text: 'Closed.' }],
        { tools: [closeAccount] },
      ),
      scriptedAgent(
        'signer',
        [{ toolCalls: [{ name: 'signedRefund', arguments: { orderId: 'S1' } }] }, { text: 'Signed refund issued.' }],
        { tools: [signedRefund] },
      ),
    ],
    { name, approverKeys: teamKeys },
  );
}

/** Starts `agent` on `input` as ops over HTTP; resolves to the chain's id. */
export const start = (call: Caller, agent: string, input: string) =>
  call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent, input } }).then((a) => a.body.workflowId as string);
/** The chain `id` as a viewer reads it over HTTP: its status and, once done, its output. */
export const status = async (call: Caller, id: string) =>
  (await call('GET', `/v1/runs/${id}`, { token: TOKENS.viewer })).body as { status: string; output?: unknown };
/** The inbox of `team` (each test's chains are its own team's: the server outlives a test) as `token` reads it over HTTP. */
export const inbox = async (call: Caller, token: string, team: string) =>
  (await call('GET', `/v1/inbox?team=${team}`, { token })).body as {
    total: number;
    approvals: { workflowId: string; requestedAt: string; overdue: boolean }[];
  };

/** The chains the page lists, in its order. */
export async function listed(page: Page): Promise<string[]> {
  const cards = page.locator('#approvals > .card');
  const keys = await Promise.all((await cards.all()).map((card) => card.getAttribute('data-key')));
  return keys.map((k) => k!.split('/')[0]!);
}

/** The uncaught errors of `page` from now on, collected as they happen. */
export async function errorsOf(page: Page): Promise<string[]> {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

/** axe-core's violations on the page as it stands: rule, impact, and the elements. */
export async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.addScriptTag({ path: AXE });
  const found = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return found.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
