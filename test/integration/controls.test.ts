import { WorkflowUpdateFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { BudgetExceededError, guardrails, MaxHandoffsExceededError, Team, type BatonRun } from '../../src';
import { GuardrailTrippedError, HandoffLoopDetectedError } from '../../src/workflow';
import { MaxTurnsExceededError } from '../../src/economics';
import { decideHandoffUpdate } from '../../src/common/messages';
import { scriptedAgent as agent } from '../helpers/agents';
import { recordingScripted } from '../helpers/models';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import {
  breakerTeam,
  budgetsTeam,
  controlsOf,
  guardrailsTeam,
  hop,
  lastTurnTeam,
  ran,
  refund,
  refunds,
} from './controls.fixtures';

const server = useTemporalServer();

describe('controls on a real server', () => {
  it('stops a ping-pong pair by loop detection before maxHandoffs, with the cycle in the error and the audit', async () => {
    const team = new Team([
      agent('a', [hop('b', 'your turn'), hop('b', 'your turn')]),
      agent('b', [hop('a', 'no, yours')]),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go', { maxHandoffs: 10 });
      const err = await run.result().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HandoffLoopDetectedError);
      expect(err).toMatchObject({ from: 'a', to: 'b', pattern: 'repeat', cycle: ['a', 'b', 'a', 'b'] });
      expect(await controlsOf(baton, run)).toEqual([
        expect.objectContaining({ control: 'loop_detected', from: 'a', to: 'b', refused: false }),
      ]);
    });
  });

  it('opens a breaker after repeated failures of a target, refuses it, and lets one try through after the cooldown', async () => {
    let ledgerUp = false;
    const team = breakerTeam(() => ledgerUp);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('triage', 'refund please', {
        breakerThreshold: 3,
        breakerCooldown: '2 seconds',
        loopWindow: 0,
      });
      await waitFor(
        () => controlsOf(baton, run),
        (c) => c.some((e) => e.control === 'breaker_refused'),
      );
      ledgerUp = true;
      const result = await run.result();
      expect(result.output).toBe('refunded');
      expect((await controlsOf(baton, run)).map((e) => e.control)).toEqual([
        'target_failed',
        'target_failed',
        'target_failed',
        'breaker_opened',
        'breaker_refused',
        'breaker_half_open',
        'breaker_closed',
      ]);
      expect(result.controls).toMatchObject({
        target_failed: 3,
        breaker_opened: 1,
        breaker_refused: 1,
        breaker_half_open: 1,
        breaker_closed: 1,
      });
      expect(result.handoffChain.map((h) => h.message)).toEqual(['refund 1', 'the ledger is down', 'refund 3']);
      const refusal = (await baton.audit(run.workflowId)).events.find(
        (e) => e.kind === 'handoff_requested' && e.message === 'refund 2',
      );
      expect(refusal).toMatchObject({
        answer: expect.stringMatching(/^Not handed off: refunds is unavailable after 3 failures/),
      });
    });
  });

  describe('budgets', () => {
    it('fails each budget with BudgetExceededError naming it: tokens, agents, handoffs (a tier), turns, deadline', async () => {
      const team = budgetsTeam();
      await withWorker(server.env, team, async (baton) => {
        const tokens = await baton.run('a', 'go', { maxTokens: 300 }).catch((e: unknown) => e);
        expect(tokens).toBeInstanceOf(BudgetExceededError);
        expect(tokens).toMatchObject({ budget: 'tokens', limit: 300, used: 300, agent: 'a' });
        const agents = await baton.run('b', 'go', { maxAgents: 1 }).catch((e: unknown) => e);
        expect(agents).toMatchObject({ name: 'BudgetExceededError', budget: 'agents', limit: 1, used: 1, agent: 'b' });
        const tier = await baton.run('hopper', 'go', { budget: 'simple' }).catch((e: unknown) => e);
        expect(tier).toBeInstanceOf(MaxHandoffsExceededError);
        expect(tier).toBeInstanceOf(BudgetExceededError);
        const turns = await baton.run('a', 'go', { maxTurns: 1 }).catch((e: unknown) => e);
        expect(turns).toBeInstanceOf(MaxTurnsExceededError);
        expect(turns).toMatchObject({ budget: 'turns', limit: 1 });
        const late = await baton.run('slow', 'go', { deadline: '1 second' }).catch((e: unknown) => e);
        expect(late).toMatchObject({ name: 'BudgetExceededError', budget: 'deadline', limit: 1000 });
        expect((late as BudgetExceededError).used).toBeGreaterThanOrEqual(1500);
      });
    });

    it("gives the agent one last turn without tools under onBudgetExceeded 'final_answer', and counts specialists' tokens", async () => {
      const { calls, providers } = recordingScripted();
      const team = lastTurnTeam();
      await withWorker(
        server.env,
        team,
        async (baton) => {
          const result = await baton.run('lead', 'go', { maxTokens: 500, onBudgetExceeded: 'final_answer' });
          expect(result.output).toBe('what I have so far');
          expect(result.budgetExceeded).toEqual({ budget: 'tokens', limit: 500, used: 600, agent: 'lead' });
          expect(result.usage.totalTokens).toBe(750);
          expect(result.usageByAgent).toMatchObject({ lead: { totalTokens: 450 }, finder: { totalTokens: 300 } });
          expect(result.controls).toMatchObject({ budget_exceeded: 1 });
          const last = calls.filter((c) => c.agentId === 'lead').at(-1)!;
          expect(last.tools).toEqual([]);
          expect(last.messages.at(-1)!.content).toMatch(/used up its tokens budget \(600 of 500\)/);
        },
        { providers },
      );
    });
  });

  it('checks input and output guardrails per agent, never inherited across the handoff', async () => {
    const team = guardrailsTeam();
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('triage', 'refund');
      const result = await run.result();
      // triage's own output guardrail does not apply to refunds' answer.
      expect(result).toMatchObject({
        output: 'The secret code is 7.',
        finalAgent: 'refunds',
        controls: { guardrail_tripped: 2 },
      });
      const trips = (await controlsOf(baton, run)).filter((e) => e.control === 'guardrail_tripped');
      expect(trips).toEqual([
        expect.objectContaining({
          agent: 'refunds',
          guardrail: 'pii',
          stage: 'input',
          reason: 'it contains personal data (email)',
          onTrip: 'feedback',
        }),
        expect.objectContaining({
          agent: 'refunds',
          guardrail: 'no-apologies',
          stage: 'output',
          reason: 'do not apologise',
          onTrip: 'feedback',
        }),
      ]);
      const audit = await baton.audit(run.workflowId);
      expect(audit.events.filter((e) => e.kind === 'handoff').map((e) => e.kind === 'handoff' && e.message)).toEqual([
        'Refund order 42',
      ]);
    });
  });

  it("fails the run on triage's own output guardrail", async () => {
    const team = new Team([
      agent('triage', [{ text: 'the secret is 7' }], {
        guardrails: { output: [guardrails.pattern(/secret/i, { name: 'no-secrets' })] },
      }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const err = await baton.run('triage', 'hi').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GuardrailTrippedError);
      expect(err).toMatchObject({
        agent: 'triage',
        guardrail: 'no-secrets',
        stage: 'output',
        reason: 'it contains "secret", which matches /secret/',
      });
    });
  });

  describe('approval of tool calls', () => {
    const decide = (run: BatonRun, decision: Record<string, unknown>) =>
      run.handle.executeUpdate(decideHandoffUpdate, { args: [decision as never] });

    it('runs a small refund at once, waits for a large one, refuses a stale decision and bad edits, and runs the approved edit', async () => {
      ran.length = 0;
      const { calls, providers } = recordingScripted();
      await withWorker(
        server.env,
        refunds([refund(50), refund(250), { text: 'done' }]),
        async (baton) => {
          const run = await baton.start('refunds', 'refund A1');
          const [waiting] = await waitFor(
            () => run.pendingApprovals(),
            (p) => p.length > 0,
          );
          expect(waiting).toMatchObject({
            from: 'refunds',
            to: 'tool:issueRefund',
            approvers: ['finance'],
            tool: { name: 'issueRefund', arguments: '{"orderId":"A1","amount":250}' },
          });
          expect((await run.status()).status).toBe('awaiting_approval');
          const id = waiting!.handoffId;
          const stale = await decide(run, {
            handoffId: id,
            approver: 'finance',
            decision: 'approve',
            callHash: 'ffffffff',
          }).catch((e: unknown) => e);
          expect(stale).toBeInstanceOf(WorkflowUpdateFailedError);
          expect(String((stale as Error).cause)).toMatch(/stale decision: it is for call ffffffff/);
          const badEdit = await decide(run, {
            handoffId: id,
            approver: 'finance',
            decision: 'approve',
            arguments: { orderId: 'A1', amount: 'lots' },
          }).catch((e: unknown) => e);
          expect(String((badEdit as Error).cause)).toMatch(
            /the edited arguments do not match the parameters of issueRefund: \$\.amount must be number, got string "lots"/,
          );
          const record = await decide(run, {
            handoffId: id,
            approver: 'finance',
            decision: 'approve',
            arguments: { orderId: 'A1', amount: 200 },
            callHash: waiting!.tool!.callHash,
          });
          expect(record).toMatchObject({
            outcome: 'approved',
            approver: 'finance',
            tool: 'issueRefund',
            editedArguments: '{"orderId":"A1","amount":200}',
          });
          const again = await decide(run, { handoffId: id, approver: 'finance', decision: 'reject' }).catch(
            (e: unknown) => e,
          );
          expect(String((again as Error).cause)).toMatch(/was already decided \(approved by finance\)/);
          const result = await run.result();
          expect(ran).toEqual([
            { orderId: 'A1', amount: 50 },
            { orderId: 'A1', amount: 200 },
          ]);
          expect(calls.at(-1)!.messages.at(-1)!.content).toBe(
            '(finance approved this call with changed arguments: {"orderId":"A1","amount":200})\nrefunded 200 on A1',
          );
          expect(result.controls).toMatchObject({ tool_approvals_requested: 1, tool_calls_approved: 1 });
          const audit = await baton.audit(run.workflowId);
          expect(audit.events.filter((e) => e.kind === 'decision_refused')).toHaveLength(0);
          expect(audit.events.find((e) => e.kind === 'approval_decided')).toMatchObject({
            tool: 'issueRefund',
            editedArguments: '{"orderId":"A1","amount":200}',
          });
        },
        { providers },
      );
    });

    it('tells the model a rejection with its reason, and a timeout, without running the tool', async () => {
      ran.length = 0;
      const { calls, providers } = recordingScripted();
      await withWorker(
        server.env,
        refunds([refund(300), refund(400), { text: 'no refunds today' }]),
        async (baton) => {
          const run = await baton.start('refunds', 'refund A1 twice');
          const [first] = await waitFor(
            () => run.pendingApprovals(),
            (p) => p.length > 0,
          );
          await baton.reject(run.workflowId, first!.handoffId, {
            approver: 'finance',
            reason: 'over the monthly limit',
          });
          const result = await run.result();
          expect(result.output).toBe('no refunds today');
          expect(ran).toEqual([]);
          const told = calls.slice(1).map((c) => c.messages.at(-1)!.content);
          expect(told).toEqual([
            'Not run: finance rejected this call to issueRefund: over the monthly limit. Do not make the same call again; tell the user, or find another way.',
            'Not run: nobody approved this call to issueRefund in time (3 seconds).',
          ]);
          expect(result.controls).toMatchObject({
            tool_approvals_requested: 2,
            tool_calls_rejected: 1,
            tool_approvals_timed_out: 1,
          });
        },
        { providers },
      );
    });
  });
});
