/**
 * Recorded scenarios of what the audit and the approval desk show: tool calls checked before anyone
 * is asked, a delegation to a specialist, and signed decisions.
 */
import { z } from 'zod';
import { defineAgent, defineTool, delegate, scripted, Team, type BatonRun } from '../../src';
import { approveHandoffSignal, decideHandoffUpdate } from '../../src/workflow';
import { signDecision, type DecisionSigner } from '../../src/client/signing';
import { scriptedAgent as agent } from '../helpers/agents';
import { rawArgumentsScripted } from '../helpers/models';
import { carolKey, keys, signedTeam } from '../helpers/signing';
import type { Scenario } from './scenarios';

/** The first approval waiting in `run` other than those in `seen`. */
export async function nextApproval(run: BatonRun, seen: string[] = []) {
  for (;;) {
    const found = (await run.pendingApprovals()).find((p) => !seen.includes(p.handoffId));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const payout = defineTool({
  name: 'payout',
  description: 'Pay money out to someone',
  parameters: z.object({ amount: z.number().positive(), to: z.string() }),
  needsApproval: true,
  execute: ({ amount, to }) => `paid ${amount} to ${to}`,
});

/**
 * A payout in invalid JSON and one with no arguments (answered without asking), one asked and
 * approved, the same call again (not asked, not run again), a call made twice in one turn (asked
 * once, rejected), and that call once more (not asked).
 */
export const toolApprovalChecksScenario: Scenario = {
  name: 'tool-approval-checks',
  providers: rawArgumentsScripted,
  team: () =>
    new Team([
      agent(
        'a',
        [
          { toolCalls: [{ name: 'payout', arguments: { $raw: '{"amount": 5, "to": ' } }] },
          { toolCalls: [{ name: 'payout', arguments: {} }] },
          { toolCalls: [{ name: 'payout', arguments: { amount: 5, to: 'bob' } }] },
          { toolCalls: [{ name: 'payout', arguments: { to: 'bob', amount: 5 } }] },
          {
            toolCalls: [
              { name: 'payout', arguments: { amount: 900, to: 'eve' } },
              { name: 'payout', arguments: { amount: 900, to: 'eve' } },
            ],
          },
          { toolCalls: [{ name: 'payout', arguments: { amount: 900, to: 'eve' } }] },
          { text: 'paid bob 5; eve was refused' },
        ],
        { tools: [payout] },
      ),
    ]),
  drive: async (b) => {
    const run = await b.start('a', 'pay bob and eve');
    const first = await nextApproval(run);
    await b.approve(run.workflowId, first.handoffId, { approver: 'alice' });
    const second = await nextApproval(run, [first.handoffId]);
    await b.reject(run.workflowId, second.handoffId, { approver: 'alice', reason: 'too much' });
    await run.result();
    return run.workflowId;
  },
};

/** A generalist that delegates a task to a specialist, whose answer comes back to it. */
export const delegationScenario: Scenario = {
  name: 'delegation',
  team: () =>
    new Team([
      defineAgent({
        id: 'triage',
        instructions: 'Generalist.',
        model: scripted([
          {
            toolCalls: [
              { name: 'delegate', arguments: { to: 'orders', task: 'look up order 42', reason: 'orders knows' } },
            ],
          },
          { text: 'Order 42 was delivered yesterday.' },
        ]),
        handoffs: [delegate('orders')],
      }),
      agent('orders', [{ text: 'order 42: delivered yesterday' }]),
    ]),
  drive: async (b) => (await b.run('triage', 'where is order 42?')).workflowId,
};

/**
 * Signed decisions: a payout whose unsigned, forged and replayed decisions are refused (by
 * signal, so they are recorded) before alice's signed approval with edited arguments, then a
 * handoff approved with the HTTP service's key for a token it checked.
 */
export const signedDecisionsScenario: Scenario = {
  name: 'signed-decisions',
  withWorkflowId: true,
  team: signedTeam,
  drive: async (b) => {
    const run = await b.start('desk', 'pay bob');
    const call = await nextApproval(run);
    const base = { handoffId: call.handoffId, approver: 'alice' };
    const sign = (signer: DecisionSigner, waiting = call) =>
      signDecision(signer, {
        workflowId: run.workflowId,
        waiting,
        decision: { approver: 'alice', decision: 'approve' },
      });
    await run.handle.signal(approveHandoffSignal, base);
    await run.handle.signal(approveHandoffSignal, {
      ...base,
      signature: await sign({ kid: 'alice-1', sign: keys.mallory.signer.sign }),
    } as never);
    await run.handle.signal(approveHandoffSignal, {
      ...base,
      signature: await sign(keys.alice.signer, { ...call, handoffId: 'another-approval' }),
    } as never);
    await b.approve(run.workflowId, call.handoffId, {
      approver: 'alice',
      arguments: { amount: 4, to: 'bob' },
      signer: keys.alice.signer,
    });
    const handoff = await nextApproval(run, [call.handoffId]);
    const token = { iss: 'https://issuer.example', sub: 'user-42' };
    const signature = await signDecision(keys.service.signer, {
      workflowId: run.workflowId,
      waiting: handoff,
      decision: { approver: 'alice', decision: 'approve', comment: 'via the service' },
      token,
    });
    await b.approve(run.workflowId, handoff.handoffId, { approver: 'alice', comment: 'via the service', signature });
    await run.result();
    return run.workflowId;
  },
};

/** A signed decision sent to the top chain for an approval waiting in its specialist, forwarded there and verified with a key the run names. */
export const signedForwardScenario: Scenario = {
  name: 'signed-forward',
  withSpecialists: true,
  team: signedTeam,
  drive: async (b) => {
    const run = await b.start('top', 'open the safe', { requireSignature: true, approverKeys: [carolKey] });
    const waiting = await nextApproval(run);
    const signature = await signDecision(keys.carol.signer, {
      workflowId: waiting.workflowId!,
      waiting,
      decision: { approver: 'carol', decision: 'approve' },
    });
    await run.handle.executeUpdate(decideHandoffUpdate, {
      args: [{ handoffId: waiting.handoffId, approver: 'carol', decision: 'approve', signature }],
    });
    await run.result();
    return run.workflowId;
  },
};
