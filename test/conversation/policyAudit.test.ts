/**
 * Policy updates in a conversation's audit, on a real server and worker: a team policy tightened
 * during a turn and one tightened between turns are in the conversation audit (among the turn's
 * steps, and in order among its turns), in what `baton audit <id>` prints, and in its export, each
 * claiming what history recorded: `baton audit --verify --against-history` passes it, and an
 * export that leaves a policy update out is refused against history.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, Team } from '../../src';
import { auditConversation } from '../../src/audit/conversation';
import { formatConversation } from '../../src/audit/conversationFormat';
import { type AuditExport, eventDigest, genesisDigest } from '../../src/audit/export';
import { verifyAuditExport } from '../../src/audit/verifyExport';
import { verifyAgainstHistory } from '../../src/audit/verifyHistory';
import { teamPolicyOf, type TeamPolicy } from '../../src/common/authority/policyUpdate';
import { tightenPolicyUpdate } from '../../src/common/messages';
import { scriptedAgent as agent } from '../helpers/agents';
import { useCliSession } from '../helpers/cliSession';
import { exportKeys, keys } from '../helpers/signing';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();
const session = useCliSession();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-conversation-policy-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content?: unknown) => {
  const p = path.join(dir, name);
  if (content !== undefined) fs.writeFileSync(p, JSON.stringify(content, null, 2));
  return p;
};

/** The export with every digest made again after an edit, as an attacker would (its head no longer signed). */
function rechained(doc: AuditExport): AuditExport {
  let previous = genesisDigest(doc.workflowId);
  const events = doc.events.map((e) => ({ ...e, digest: (previous = eventDigest(previous, e)) }));
  return { ...doc, events, head: previous, headSignature: undefined };
}

/** `desk` hands off to `mailer` (bob approves); `mailer` sends an email: freely in v1, with alice's approval in v2. */
function mailTeam(version: 1 | 2): Team {
  const sendEmail = defineTool({
    name: 'sendEmail',
    description: 'Send an email',
    parameters: z.object({ to: z.string() }),
    ...(version === 2 ? { needsApproval: { approvers: ['alice'] } } : {}),
    execute: ({ to }) => `sent to ${to}`,
  });
  return new Team(
    [
      agent('desk', [{ handoff: { to: 'mailer', message: 'email the customer' } }], { handoffs: ['mailer'] }),
      agent(
        'mailer',
        [{ toolCalls: [{ name: 'sendEmail', arguments: { to: 'customer@example.com' } }] }, { text: 'emailed' }],
        { tools: [sendEmail], approval: { approvers: ['bob'] } },
      ),
    ],
    { name: 'mail', version: `v${version}` },
  );
}

/** v2's policy, and handoffs into desk needing carol's approval besides. */
const v3 = (v2: TeamPolicy): TeamPolicy => ({
  ...v2,
  version: 'mail@v3',
  agents: { ...v2.agents, desk: { ...v2.agents.desk, approval: { approvers: ['carol'] } } },
});

describe("a conversation's audit", () => {
  it(
    'shows the policy updates applied during and between its turns, and its export carries them as history recorded them',
    { timeout: 180_000 },
    async () => {
      const v2 = teamPolicyOf(mailTeam(2).spec());
      await withWorker(server.env, mailTeam(1), async (baton) => {
        const chat = baton.conversation('desk');
        const replied = chat.send('tell the customer');
        const run = baton.getRun(chat.id);
        const [handoff] = await waitFor(
          () => run.pendingApprovals().catch(() => []),
          (p) => p.length === 1,
        );
        // During turn 1: sendEmail now needs alice.
        await run.handle.executeUpdate(tightenPolicyUpdate, {
          args: [{ policy: v2, appliedBy: 'ops:carol', reason: 'v2 rollout' }],
        });
        await baton.approve(chat.id, handoff!.handoffId, { approver: 'bob' });
        const [email] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1 && p[0]!.to === 'tool:sendEmail',
        );
        await baton.approve(chat.id, email!.handoffId, { approver: 'alice' });
        expect((await replied).output).toBe('emailed');
        // Between turns: handoffs into desk need carol.
        const between = await run.handle.executeUpdate(tightenPolicyUpdate, {
          args: [{ policy: v3(v2), appliedBy: 'ops:dave' }],
        });
        expect(between.tightened).toContain('a start at desk now needs approval by carol');

        const audit = await auditConversation(server.env.client, chat.id);
        expect(audit.policyUpdates).toEqual([
          expect.objectContaining({
            kind: 'policy_updated',
            from: 'mail@v1',
            to: 'mail@v2',
            appliedBy: 'ops:carol',
            reason: 'v2 rollout',
            tightened: ['tool "sendEmail" of agent "mailer" now needs approval by alice'],
            afterTurn: 1,
            duringTurn: 1,
            policy: v2,
            runId: expect.any(String),
            eventId: expect.any(Number),
          }),
          expect.objectContaining({
            kind: 'policy_updated',
            from: 'mail@v2',
            to: 'mail@v3',
            appliedBy: 'ops:dave',
            tightened: between.tightened,
            afterTurn: 1,
          }),
        ]);
        expect(audit.policyUpdates[1]).not.toHaveProperty('duringTurn');
        // In turn 1's steps, after bob was asked and before the email's approval was.
        const [turn] = audit.turns;
        expect(turn!.steps.map((s) => (s.kind === 'approval_requested' ? `asked ${String(s.to)}` : s.kind))).toEqual([
          'asked mailer',
          'policy_updated',
          'approval_decided',
          'handoff',
          'asked tool:sendEmail',
          'approval_decided',
        ]);
        // The chain audit of the same history shows the same two.
        const chain = await baton.audit(chat.id);
        expect(chain.events.filter((e) => e.kind === 'policy_updated').map((e) => [e.eventId, e.to])).toEqual(
          audit.policyUpdates.map((p) => [p.eventId, p.to]),
        );

        const text = formatConversation(audit);
        expect(text).toMatch(
          /policy +mail@v1 → mail@v2 applied by ops:carol: tool "sendEmail" of agent "mailer" now needs approval by alice/,
        );
        expect(text).toMatch(/⚖ policy mail@v2 → mail@v3 applied by ops:dave after turn 1: /);
        const env = {
          TEMPORAL_ADDRESS: server.env.address,
          BATON_AUDIT_KEY: file('audit.jwk', keys.audit.jwk),
          BATON_SERVICE_KEY: undefined,
          BATON_AUDIT_KEYS: file('export-keys.json', exportKeys),
        };
        const printed = await session.cli(['audit', chat.id], env);
        expect(printed.code, printed.stderr).toBe(0);
        expect(printed.stdout).toContain('mail@v1 → mail@v2 applied by ops:carol');
        expect(printed.stdout).toContain('⚖ policy mail@v2 → mail@v3 applied by ops:dave after turn 1');
        const json = JSON.parse((await session.cli(['audit', chat.id, '--json'], env)).stdout) as typeof audit;
        expect(json.policyUpdates.map((p) => p.to)).toEqual(['mail@v2', 'mail@v3']);

        // The export carries both, each claiming the memo history recorded; --verify checks them against history.
        const made = await session.cli(['audit', chat.id, '--export', file('export.json')], env);
        expect(made.code, made.stderr).toBe(0);
        const doc = JSON.parse(fs.readFileSync(file('export.json'), 'utf8')) as AuditExport;
        const updates = doc.events.filter((e) => e.event.kind === 'policy_updated');
        expect(
          updates.map((e) => [
            (e.event as { to: string }).to,
            (e.event as { policy?: unknown }).policy,
            e.recorded?.eventId,
          ]),
        ).toEqual(audit.policyUpdates.map((p) => [p.to, p.policy, p.eventId]));
        const verified = await session.cli(['audit', '--verify', file('export.json'), '--against-history'], env);
        expect(verified.stderr).toBe('');
        expect(verified.code).toBe(0);
        expect(verified.stdout).toMatch(/matches history: \d+ recorded results and approval events in 1 chain/);

        // One left out, or one whose tightening was rewritten: history says so.
        const without = { ...doc, events: doc.events.filter((e) => e !== updates[0]) };
        expect(await verifyAgainstHistory(server.env.client, without)).toMatchObject({
          ok: false,
          failure: {
            reason: expect.stringMatching(
              /history records policy_updated \(policy mail@v2 applied by ops:carol\) at event \d+ of run .*, which the export leaves out/,
            ),
          },
        });
        // One whose tightening was rewritten, every digest made again: what it shows is not what it claims history recorded.
        const rewritten = structuredClone(doc);
        (rewritten.events.find((e) => e.seq === updates[0]!.seq)!.event as { tightened: string[] }).tightened = [];
        expect(verifyAuditExport(rechained(rewritten), { acceptUntrustedHead: true })).toMatchObject({
          ok: false,
          failure: { kind: 'policy_updated', reason: expect.stringContaining('is not what its recorded digest names') },
        });
        await chat.end();
      });
    },
  );
});
