import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, guardrails, scripted, Team, UserError } from '../../src';
import { approvalNeeded, builtinVerdict } from '../../src/common/controls';
import { runOptionProblems, resolveRunOptions } from '../../src/common/options';
import { schemaProblems } from '../../src/common/jsonSchema';

const tool = (needsApproval: unknown) => () =>
  defineTool({ name: 'pay', description: 'Pay', parameters: z.object({ amount: z.number() }), needsApproval: needsApproval as never, execute: () => 'paid' });

describe('declaring controls', () => {
  it('refuses bad needsApproval declarations, naming the field and what would be valid', () => {
    expect(tool('yes')).toThrow('needsApproval must be true or {when?, approvers?, timeout?, onTimeout?}, got "yes"');
    expect(tool({ when: { arg: 'amount', op: 'gt', value: 1 } })).toThrow('"needsApproval.when[0].op" must be one of ">", ">=", "<", "<=", "==", "!=", "in", "matches", "exists", got "gt"');
    expect(tool({ when: [{ arg: 'amount', op: '>', value: '100' }] })).toThrow('"needsApproval.when[0].value" must be a number for ">", got "100"');
    expect(tool({ timeout: 'soon' })).toThrow(/"needsApproval.timeout" must be a duration/);
    expect(tool({ when: { arg: 'amount', op: '>', value: 100 }, approvers: ['finance'] })().approval).toEqual({ approvers: ['finance'], when: [{ arg: 'amount', op: '>', value: 100 }] });
  });

  it('weighs argument conditions in the workflow, and asks for approval when arguments cannot be read', () => {
    const spec = { when: [{ arg: 'amount', op: '>' as const, value: 100 }, { arg: 'customer.country', op: 'in' as const, value: ['FR', 'DE'] }] };
    expect(approvalNeeded(spec, '{"amount":150,"customer":{"country":"FR"}}')).toBe(true);
    expect(approvalNeeded(spec, '{"amount":150,"customer":{"country":"US"}}')).toBe(false);
    expect(approvalNeeded(spec, '{"amount":50,"customer":{"country":"FR"}}')).toBe(false);
    expect(approvalNeeded(spec, 'not json')).toBe(true);
    expect(approvalNeeded({}, '{}')).toBe(true);
    expect(approvalNeeded({ required: false }, '{}')).toBe(false);
  });

  it('refuses bad guardrails and two of one name', () => {
    expect(() => guardrails.maxLength(0)).toThrow('maxLength(max) needs a whole number >= 1, got 0');
    expect(() => guardrails.pii(['passport' as never])).toThrow('pii(types) takes some of email, phone, ssn, credit_card, iban, got ["passport"]');
    expect(() => guardrails.custom({ name: 'x', check: undefined as never })).toThrow('custom({name, check}) needs a check function');
    expect(() => guardrails.maxLength(5, { onTrip: 'warn' as never })).toThrow('onTrip must be "fail" or "feedback", got "warn"');
    const twice = () => defineAgent({ id: 'a', instructions: 'A', model: scripted([]), guardrails: { output: [guardrails.maxLength(5), guardrails.maxLength(9)] } });
    expect(twice).toThrow(UserError);
    expect(twice).toThrow('guardrails.output has two guardrails named "maxLength"; give them distinct names');
    expect(() => defineAgent({ id: 'a', instructions: 'A', model: scripted([]), guardrails: { outputs: [] } as never })).toThrow('guardrails has unknown field "outputs" (valid: input, output)');
  });

  it('records guardrails and tool approvals in the team snapshot, custom checks by name only', () => {
    const pay = tool({ when: { arg: 'amount', op: '>', value: 100 } })();
    const agent = defineAgent({
      id: 'a',
      instructions: 'A',
      model: scripted([]),
      tools: [pay],
      guardrails: { input: [guardrails.pii(['email'])], output: [guardrails.custom({ name: 'tone', onTrip: 'feedback', check: () => undefined }), guardrails.jsonSchema(z.object({ ok: z.boolean() }))] },
    });
    const spec = new Team([agent]).spec().agents.a!;
    expect(spec.guardrails).toEqual({
      input: [{ name: 'pii', kind: 'pii', types: ['email'] }],
      output: [
        { name: 'tone', kind: 'custom', onTrip: 'feedback' },
        { name: 'jsonSchema', kind: 'jsonSchema', schema: expect.objectContaining({ type: 'object', required: ['ok'] }) },
      ],
    });
    expect(spec.toolApprovals).toEqual({ pay: { when: [{ arg: 'amount', op: '>', value: 100 }] } });
    expect(JSON.parse(JSON.stringify(spec))).toEqual(spec);
  });

  it('decides built-in guardrails in the workflow: card numbers only when their checksum holds', () => {
    const pii = { name: 'pii', kind: 'pii' as const, types: ['credit_card' as const, 'email' as const] };
    expect(builtinVerdict(pii, 'card 4111 1111 1111 1111')).toEqual({ tripped: true, reason: 'it contains personal data (credit card)' });
    expect(builtinVerdict(pii, 'order 4111 1111 1111 1112')).toEqual({ tripped: false });
    expect(builtinVerdict({ name: 's', kind: 'jsonSchema', schema: { type: 'object', required: ['ok'] } }, '{"no":1}')).toEqual({ tripped: true, reason: '$.ok is required' });
    expect(builtinVerdict({ name: 's', kind: 'jsonSchema', schema: {} }, 'plain')).toEqual({ tripped: true, reason: 'it is not JSON' });
  });

  it('checks JSON Schema as zod writes it', () => {
    const schema = z.toJSONSchema(z.object({ id: z.string().min(2), n: z.number().int().max(3), tags: z.array(z.enum(['a', 'b'])).optional(), kind: z.union([z.literal('x'), z.literal('y')]) })) as Record<string, unknown>;
    expect(schemaProblems(schema, { id: 'ab', n: 3, kind: 'x' })).toEqual([]);
    expect(schemaProblems(schema, { id: 'a', n: 4.5, tags: ['c'], kind: 'z', extra: true })).toEqual([
      '$.id must be at least 2 characters, got 1',
      '$.n must be integer, got number 4.5',
      '$.tags[0] must be one of "a", "b", got "c"',
      '$.kind matches 0 of the 2 allowed shapes (anyOf)',
      '$.extra is not allowed (allowed: id, n, tags, kind)',
    ]);
  });

  it('resolves budget tiers under explicit options, and refuses bad control options', () => {
    expect(resolveRunOptions({ budget: 'medium', maxTokens: 1000 })).toMatchObject({ maxHandoffs: 2, maxTokens: 1000, maxAgents: 3 });
    expect(runOptionProblems({ budget: 'huge', deadline: 'tomorrow', onLoop: 'warn', loopWindow: -1 })).toEqual([
      '"budget" must be "simple" or "medium" or "complex", got "huge"',
      '"deadline" must be a duration from the start such as "10 minutes", or an ISO 8601 time such as "2026-01-31T17:00:00Z", got "tomorrow"',
      '"loopWindow" must be an integer >= 0 and <= 100, got -1',
      '"onLoop" must be "fail" or "refuse", got "warn"',
    ]);
  });
});
