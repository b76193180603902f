/**
 * JSON nested thousands of levels deep (or with thousands of entries), inside every size limit, on
 * a real server and worker: as the edited arguments of a tool call's approval (by update, signal,
 * the library and HTTP) and in a start's options and context. Each is refused, typed, naming the
 * limit; the chain goes on; the audit, its export and its timeline read such a history.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { type Payload, RawValue, rawValueTypeInfo } from '@temporalio/common';
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, LIMITS, Team } from '../../src';
import { exportAudit, formatTimeline } from '../../src/audit';
import { InputTooLargeError, WorkflowType } from '../../src/workflow';
import { toBatonError } from '../../src/client';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { TOKENS, withService } from '../server/service';
import { approvalEvents, failedTasks } from './history';

const server = useTemporalServer();

const RAW = { inputTypes: [rawValueTypeInfo] };
const json = (text: string): RawValue =>
  RawValue.fromPayload({
    metadata: { encoding: Buffer.from('json/plain') },
    data: Buffer.from(text),
  } satisfies Payload);

/** `{"a":{"a":…1…}}`, `depth` levels, as text: about 5 bytes a level. */
const deepText = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** The same value, built without recursion. */
function deepValue(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

const team = () => {
  const pay = defineTool({
    name: 'pay',
    description: 'Pay someone',
    // A recursive schema: a check that followed a value wherever it nests would follow it 10,000 levels.
    parameters: z.object({ amount: z.number(), note: z.record(z.string(), z.unknown()).optional() }),
    needsApproval: { approvers: ['alice'] },
    execute: ({ amount }) => `paid ${amount}`,
  });
  return new Team([
    scriptedAgent('a', [{ toolCalls: [{ name: 'pay', arguments: { amount: 5 } }] }, { text: 'paid' }], {
      tools: [pay],
    }),
  ]);
};

describe('JSON nested too deep, or too wide', () => {
  it(
    'is refused as edited arguments by update, signal, the library and HTTP, naming the limit, and the call still waits',
    { timeout: 120_000 },
    async () => {
      await withService(server.env, team(), async ({ baton, call }) => {
        const run = await baton.start('a', 'pay five');
        const [waiting] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        const id = waiting!.handoffId;
        const handle = run.handle as WorkflowHandle;
        const decision = (args: string) =>
          `{"handoffId": ${JSON.stringify(id)}, "approver": "alice", "decision": "approve", "arguments": ${args}}`;

        // By update, from any client: rejected by the validator, typed, naming the field and the limit.
        const decide = defineUpdate<unknown, [RawValue]>('decideHandoff', { typeInfo: RAW });
        for (const [args, unit, limit] of [
          [`{"amount": 5, "note": ${deepText(10_000)}}`, 'levels', LIMITS.jsonDepth],
          [
            `{"amount": 5, "note": {"list": [${Array.from({ length: 10_001 }, () => '0').join(',')}]}}`,
            'entries',
            LIMITS.jsonEntries,
          ],
        ] as const) {
          expect(Buffer.byteLength(args)).toBeLessThan(LIMITS.argumentsBytes);
          const err = toBatonError(
            await handle.executeUpdate(decide, { args: [json(decision(args))] }).catch((e: unknown) => e),
          );
          expect(err).toBeInstanceOf(InputTooLargeError);
          expect(err).toMatchObject({ field: 'decision.arguments', unit, limit });
          expect((err as Error).message).toMatch(
            unit === 'levels'
              ? /"decision.arguments" nests arrays and objects more than 64 levels deep; the limit is 64 levels/
              : /"decision.arguments" holds more than 10000 fields and items; the limit is 10000 entries/,
          );
        }
        // By signal: refused on the record.
        await handle.signal(
          defineSignal<[RawValue]>('approveHandoff', { typeInfo: RAW }),
          json(decision(`{"amount": 5, "note": ${deepText(10_000)}}`)),
        );
        const refused = await waitFor(
          () => approvalEvents(handle),
          (e) => e.some((x) => x.type === 'decision_refused'),
        );
        expect(refused.find((x) => x.type === 'decision_refused')).toMatchObject({
          approver: 'alice',
          reason: '"decision.arguments" nests arrays and objects more than 64 levels deep; the limit is 64 levels',
        });
        // The library refuses before sending.
        await expect(
          baton.approve(run.workflowId, id, { approver: 'alice', arguments: { amount: 5, note: deepValue(10_000) } }),
        ).rejects.toMatchObject({ name: InputTooLargeError.name, field: 'decision.arguments', unit: 'levels' });
        // Over HTTP: a 413 problem naming the field, not a 500.
        const http = await call('POST', `/v1/runs/${run.workflowId}/approvals/${id}`, {
          token: TOKENS.alice,
          body: `{"decision": "approve", "arguments": {"amount": 5, "note": ${deepText(10_000)}}}`,
        });
        expect(http.status).toBe(413);
        expect(http.body).toMatchObject({ title: 'Input too large', errors: [{ path: 'arguments' }] });

        expect((await run.pendingApprovals()).map((p) => p.handoffId)).toEqual([id]);
        await baton.approve(run.workflowId, id, {
          approver: 'alice',
          arguments: { amount: 7, note: deepValue(LIMITS.jsonDepth - 2) },
        });
        expect((await run.result()).output).toBe('paid');
        expect(await failedTasks(handle)).toEqual([]);

        // The audit reads the history with the deep signal in it, and writes every form of it.
        const audit = await baton.audit(run.workflowId);
        expect(audit.events.find((e) => e.kind === 'signal')).toMatchObject({
          input: { unread: expect.stringContaining('levels deep') },
        });
        expect(formatTimeline(audit)).toContain('refused approve from "alice" (claimed)');
        expect(exportAudit(audit).events.length).toBeGreaterThan(0);
      });
    },
  );

  it(
    'is refused in a start input, naming the field and the limit, before anything runs',
    { timeout: 60_000 },
    async () => {
      await withService(server.env, team(), async ({ queue }) => {
        for (const [text, field] of [
          [`{"agent": "a", "input": "go", "context": ${deepText(10_000)}}`, 'context'],
          [`{"agent": "a", "input": "go", "options": {"approvals": ${deepText(10_000)}}}`, 'options'],
          [`{"agent": "a", "input": "go", "extra": ${deepText(10_000)}}`, 'start input'],
        ] as const) {
          const handle = await server.env.client.workflow.start(WorkflowType.HANDOFF_RUN, {
            taskQueue: queue,
            workflowId: `deep-${Date.now()}-${Math.random()}`,
            args: [json(text)],
            typeInfo: RAW,
          });
          const err = toBatonError(await handle.result().catch((e: unknown) => e));
          expect(err).toBeInstanceOf(InputTooLargeError);
          expect(err).toMatchObject({ field, unit: 'levels' });
          expect(await failedTasks(handle as WorkflowHandle)).toEqual([]);
        }
      });
    },
  );
});
