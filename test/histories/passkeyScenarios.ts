/**
 * A recorded chain decided with passkeys: the run trusts alice's passkey (P-256) and bob's
 * (Ed25519); bob's assertion in alice's name and an assertion over another approval's challenge
 * are refused, alice's assertion approves the handoff into the vault; at the payout, her earlier
 * assertion sent again and a fresh one whose counter does not go forward are refused, and her
 * next assertion approves the call.
 */
import { z } from 'zod';
import { defineTool, Team } from '../../src';
import { approveHandoffSignal } from '../../src/workflow';
import { factsOfDecision } from '../../src/common/signatures/payload';
import { scriptedAgent as agent } from '../helpers/agents';
import { nodePasskey, passkeyEntry, passkeySign } from '../helpers/passkeys';
import { nextApproval } from './auditScenarios';
import type { Scenario } from './scenarios';

const AT = { rpId: 'approvals.example.com', origin: 'https://approvals.example.com' };

function vaultTeam(): Team {
  const payout = defineTool({
    name: 'payout',
    description: 'Pay out',
    parameters: z.object({ to: z.string(), amount: z.number() }),
    needsApproval: { approvers: ['alice'] },
    execute: ({ to, amount }) => `paid ${amount} to ${to}`,
  });
  return new Team(
    [
      agent('desk', [{ handoff: { to: 'vault', message: 'pay bob' } }], { handoffs: ['vault'] }),
      agent('vault', [{ toolCalls: [{ name: 'payout', arguments: { to: 'bob', amount: 40 } }] }, { text: 'paid' }], {
        tools: [payout],
        approval: { approvers: ['alice'], requireSignature: true },
      }),
    ],
    { name: 'vault', version: 'v1' },
  );
}

export const passkeyDecisionsScenario: Scenario = {
  name: 'passkey-decisions',
  withWorkflowId: true,
  team: vaultTeam,
  drive: async (b) => {
    const alice = nodePasskey('alice-passkey', 'P-256');
    const bob = nodePasskey('bob-passkey', 'Ed25519');
    const run = await b.start('desk', 'pay bob', {
      requireSignature: true,
      approverKeys: [
        passkeyEntry(alice, ['alice'], AT.rpId, [AT.origin]),
        passkeyEntry(bob, ['bob'], AT.rpId, [AT.origin]),
      ],
    });
    const facts = (waiting: Awaited<ReturnType<typeof nextApproval>>, approval = waiting.handoffId) =>
      factsOfDecision(run.workflowId, { ...waiting, handoffId: approval }, { approver: 'alice', decision: 'approve' });
    const refused = (handoffId: string, signature: string) =>
      run.handle.signal(approveHandoffSignal, { handoffId, approver: 'alice', signature } as never);

    const handoff = await nextApproval(run);
    await refused(handoff.handoffId, passkeySign(bob, facts(handoff), AT));
    const [, , ...elsewhere] = passkeySign(alice, facts(handoff, 'another-approval'), AT).split('.');
    const [header, payload] = passkeySign(nodePasskey(alice.kid), facts(handoff), AT).split('.');
    await refused(handoff.handoffId, [header, payload, ...elsewhere].join('.'));
    const first = passkeySign(alice, facts(handoff), AT);
    await b.approve(run.workflowId, handoff.handoffId, { approver: 'alice', signature: first });

    const call = await nextApproval(run, [handoff.handoffId]);
    await refused(call.handoffId, first);
    await refused(call.handoffId, passkeySign(alice, facts(call), { ...AT, signCount: alice.signCount }));
    await b.approve(run.workflowId, call.handoffId, {
      approver: 'alice',
      signature: passkeySign(alice, facts(call), AT),
    });
    await run.result();
    // What is recorded is what the scenario says: four assertions refused, two passkey decisions that acted.
    const events = (await b.audit(run.workflowId)).events;
    const refusals = events.filter((e) => e.kind === 'decision_refused').length;
    const passkeyDecisions = events.filter(
      (e) =>
        e.kind === 'approval_decided' && (e as { identity?: { passkey?: unknown } }).identity?.passkey !== undefined,
    ).length;
    if (refusals !== 4 || passkeyDecisions !== 2)
      throw new Error(
        `passkey-decisions recorded ${refusals} refusals and ${passkeyDecisions} passkey decisions, not 4 and 2`,
      );
    return run.workflowId;
  },
};
