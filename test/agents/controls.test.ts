import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, guardrails, scripted, Team } from '../../src';
import { UserError } from '../../src/workflow';
import { approvalNeeded, builtinVerdict } from '../../src/common/controls';
import { runOptionProblems, resolveRunOptions } from '../../src/common/options';
import { schemaProblems } from '../../src/common/jsonSchema';

const tool = (needsApproval: unknown) => () =>
  defineTool({
    name: 'pay',
    description: 'Pay',
    parameters: z.object({ amount: z.number() }),
    needsApproval: needsApproval as never,
    execute: () => 'paid',
  });

describe('declaring controls', () => {
  it('refuses bad needsApproval declarations, naming the field and what would be valid', () => {
    expect(tool('yes')).toThrow(
      'needsApproval must be true or {when?, approvers?, timeout?, onTimeout?, dueIn?, remindEvery?, escalation?}, got "yes"',
    );
    expect(tool({ when: { arg: 'amount', op: 'gt', value: 1 } })).toThrow(
      '"needsApproval.when[0].op" must be one of ">", ">=", "<", "<=", "==", "!=", "in", "matches", "exists", got "gt"',
    );
    expect(tool({ when: [{ arg: 'amount', op: '>', value: '100' }] })).toThrow(
      '"needsApproval.when[0].value" must be a number for ">", got "100"',
    );
    expect(tool({ timeout: 'soon' })).toThrow(/"needsApproval.timeout" must be a duration/);
    expect(tool({ when: { arg: 'amount', op: '>', value: 100 }, approvers: ['finance'] })().approval).toEqual({
      approvers: ['finance'],
      when: [{ arg: 'amount', op: '>', value: 100 }],
    });
  });

  it('refuses conditions on arguments the tool does not have or inside a list, which would never hold, naming the arguments it has', () => {
    const pay = (when: unknown) => () =>
      defineTool({
        name: 'pay',
        description: 'Pay',
        parameters: z.object({
          amount: z.number(),
          customer: z.object({ country: z.string() }),
          items: z.array(z.object({ price: z.number() })),
        }),
        needsApproval: { when } as never,
        execute: () => 'paid',
      });
    expect(pay({ arg: 'amout', op: '>', value: 100 })).toThrow(UserError);
    expect(pay({ arg: 'amout', op: '>', value: 100 })).toThrow(
      'Invalid tool "pay": "needsApproval.when[0].arg" "amout": not an argument of pay (its arguments: amount, customer, items)',
    );
    expect(
      pay([
        { arg: 'amount', op: '>', value: 1 },
        { arg: 'customer.countri', op: '==', value: 'FR' },
      ]),
    ).toThrow('"needsApproval.when[1].arg" "customer.countri": customer has no field "countri" (its fields: country)');
    expect(pay({ arg: 'amount.cents', op: '>', value: 1 })).toThrow(
      '"needsApproval.when[0].arg" "amount.cents": amount is a number, with no fields',
    );
    expect(pay({ arg: 'items.price', op: '>', value: 100 })).toThrow(
      '"needsApproval.when[0].arg" "items.price": items is a list, and a condition weighs one value; put the condition on the list itself (e.g. exists)',
    );
    expect(pay({ arg: 'items', op: 'exists' })().approval).toEqual({ when: [{ arg: 'items', op: 'exists' }] });
  });

  it('refuses a condition missing its value or with one it does not use, an empty approver list, an unknown field and a list in place of the policy', () => {
    expect(tool({ when: { arg: 'amount', op: '==' } })).toThrow(
      '"needsApproval.when[0].value" is missing: "==" compares the argument with it',
    );
    expect(tool({ when: { arg: 'amount', op: 'exists', value: 3 } })).toThrow(
      '"needsApproval.when[0].value" is not used by "exists", which asks only whether the argument is given; leave it out',
    );
    expect(tool({ when: { arg: 'amount', op: 'in', value: 5 } })).toThrow(
      '"needsApproval.when[0].value" must be a list for "in", got 5',
    );
    expect(tool({ when: { arg: 'amount', op: 'matches', value: '([' } })).toThrow(
      '"needsApproval.when[0].value" must be a regular expression source for "matches", got "(["',
    );
    expect(tool({ when: { arg: 'amount', op: '>', value: 1, over: true } })).toThrow(
      '"needsApproval.when[0]" has unknown field(s) "over" (valid: arg, op, value)',
    );
    expect(tool({ when: 'amount > 100' })).toThrow(
      '"needsApproval.when[0]" must be a condition {arg, op, value}, got "amount > 100"',
    );
    expect(tool({ approvers: [] })).toThrow(
      '"needsApproval.approvers" is empty, so nobody could approve a call; name who may, or leave it out to let anyone',
    );
    expect(tool({ approvers: 'finance' })).toThrow(
      '"needsApproval.approvers" must be a list of non-empty strings, got "finance"',
    );
    expect(tool({ onTimeout: 'maybe' })).toThrow(
      '"needsApproval.onTimeout" must be "reject" or "approve" or "fail", got "maybe"',
    );
    expect(tool({ whenn: { arg: 'amount', op: '>', value: 1 } })).toThrow(
      '"needsApproval" has unknown field(s) "whenn" (valid: required, requireSignature, approvers, timeout, onTimeout, dueIn, remindEvery, escalation, quorum, stages, when)',
    );
    expect(tool([{ arg: 'amount', op: '>', value: 1 }])).toThrow(
      'needsApproval must be true or {when?, approvers?, timeout?, onTimeout?, dueIn?, remindEvery?, escalation?}, got [{"arg":"amount","op":">","value":1}] (conditions go in when: { when: [{ arg, op, value }] })',
    );
  });

  it('weighs argument conditions in the workflow, and asks for approval when arguments cannot be read', () => {
    const spec = {
      when: [
        { arg: 'amount', op: '>' as const, value: 100 },
        { arg: 'customer.country', op: 'in' as const, value: ['FR', 'DE'] },
      ],
    };
    expect(approvalNeeded(spec, '{"amount":150,"customer":{"country":"FR"}}')).toBe(true);
    expect(approvalNeeded(spec, '{"amount":150,"customer":{"country":"US"}}')).toBe(false);
    expect(approvalNeeded(spec, '{"amount":50,"customer":{"country":"FR"}}')).toBe(false);
    expect(approvalNeeded(spec, 'not json')).toBe(true);
    expect(approvalNeeded({}, '{}')).toBe(true);
    expect(approvalNeeded({ required: false }, '{}')).toBe(false);
  });

  it('refuses bad guardrails and two of one name', () => {
    expect(() => guardrails.maxLength(0)).toThrow('maxLength(max) needs a whole number >= 1, got 0');
    expect(() => guardrails.pii(['passport' as never])).toThrow(
      'pii(types) takes some of email, phone, ssn, credit_card, iban, got ["passport"]',
    );
    expect(() => guardrails.custom({ name: 'x', check: undefined as never })).toThrow(
      'custom({name, check}) needs a check function',
    );
    expect(() => guardrails.maxLength(5, { onTrip: 'warn' as never })).toThrow(
      'onTrip must be "fail" or "feedback", got "warn"',
    );
    const twice = () =>
      defineAgent({
        id: 'a',
        instructions: 'A',
        model: scripted([]),
        guardrails: { output: [guardrails.maxLength(5), guardrails.maxLength(9)] },
      });
    expect(twice).toThrow(UserError);
    expect(twice).toThrow('guardrails.output has two guardrails named "maxLength"; give them distinct names');
    expect(() =>
      defineAgent({ id: 'a', instructions: 'A', model: scripted([]), guardrails: { outputs: [] } as never }),
    ).toThrow('guardrails has unknown field "outputs" (valid: input, output)');
  });

  it('refuses guardrail options a guardrail does not take, a sticky pattern, an empty reason, a schema JSON Schema cannot express, and a list in place of {input, output}', () => {
    expect(() => guardrails.maxLength(Infinity)).toThrow(
      'Invalid guardrail: maxLength(max) needs a whole number >= 1, got Infinity',
    );
    expect(() => guardrails.maxLength(5, { ontrip: 'feedback' } as never)).toThrow(UserError);
    expect(() => guardrails.maxLength(5, { ontrip: 'feedback' } as never)).toThrow(
      'Invalid guardrail: guardrails.maxLength() has unknown option(s) "ontrip" (valid: name, onTrip)',
    );
    expect(() => guardrails.pii(['email'], 'strict' as never)).toThrow(
      'Invalid guardrail: the options of guardrails.pii() must be an object {name, onTrip}, got "strict"',
    );
    expect(() => guardrails.custom({ name: 'tone', check: () => false, retries: 2 } as never)).toThrow(
      'Invalid guardrail: guardrails.custom() has unknown option(s) "retries" (valid: name, onTrip, check)',
    );
    expect(() => guardrails.custom({ check: () => false } as never)).toThrow(
      'Invalid guardrail: custom({name, check}) needs a name',
    );
    expect(() => guardrails.maxLength(5, { name: 'has space' })).toThrow(
      'Invalid guardrail: name "has space" must be 1-64 letters, digits, "_", ".", ":" or "-"',
    );
    expect(() => guardrails.pattern('secret' as never)).toThrow(
      'Invalid guardrail: pattern(re) needs a RegExp, got "secret"',
    );
    expect(() => guardrails.pattern(/secret/y)).toThrow(
      'Invalid guardrail: pattern(re) does not take the sticky flag "y" (it would match only at the start of the text; use ^ for that), got /secret/y',
    );
    expect(() => guardrails.pattern(/secret/, { message: ' ' })).toThrow(
      'Invalid guardrail: pattern(re, {message}) needs a non-empty message (the reason the agent is given), got " "',
    );
    expect(() => guardrails.pii([])).toThrow(
      'Invalid guardrail: pii(types) takes some of email, phone, ssn, credit_card, iban, got []',
    );
    expect(() => guardrails.jsonSchema(null as never)).toThrow(
      'Invalid guardrail: jsonSchema(schema) needs a zod schema or a JSON Schema object',
    );
    expect(() => guardrails.jsonSchema(z.object({ at: z.date() }))).toThrow(UserError);
    expect(() => guardrails.jsonSchema(z.object({ at: z.date() }))).toThrow(
      'Invalid guardrail: jsonSchema(schema) needs a zod schema that converts to JSON Schema: Date cannot be represented in JSON Schema',
    );
    const agent = (g: unknown) => () =>
      defineAgent({ id: 'a', instructions: 'A', model: scripted([]), guardrails: g as never });
    expect(agent([guardrails.pii()])).toThrow(
      'Invalid agent "a": guardrails must be {input?: [...], output?: [...]}, not a list: say whether each checks what the agent receives (input) or its answer (output)',
    );
    expect(agent('pii')).toThrow('Invalid agent "a": guardrails must be {input?: [...], output?: [...]}, got "pii"');
    expect(agent({ input: guardrails.pii() })).toThrow(
      'Invalid agent "a": guardrails.input must be a list of guardrails made with guardrails.maxLength(), .pattern(), .pii(), .jsonSchema() or .custom()',
    );
    expect(agent({ output: [{ kind: 'maxLength', max: 5 }] })).toThrow(
      'guardrails.output must be a list of guardrails made with guardrails.maxLength()',
    );
  });

  it('records guardrails and tool approvals in the team snapshot, custom checks by name only', () => {
    const pay = tool({ when: { arg: 'amount', op: '>', value: 100 } })();
    const agent = defineAgent({
      id: 'a',
      instructions: 'A',
      model: scripted([]),
      tools: [pay],
      guardrails: {
        input: [guardrails.pii(['email'])],
        output: [
          guardrails.custom({ name: 'tone', onTrip: 'feedback', check: () => undefined }),
          guardrails.jsonSchema(z.object({ ok: z.boolean() })),
        ],
      },
    });
    const spec = new Team([agent]).spec().agents.a!;
    expect(spec.guardrails).toEqual({
      input: [{ name: 'pii', kind: 'pii', types: ['email'] }],
      output: [
        { name: 'tone', kind: 'custom', onTrip: 'feedback' },
        {
          name: 'jsonSchema',
          kind: 'jsonSchema',
          schema: expect.objectContaining({ type: 'object', required: ['ok'] }),
        },
      ],
    });
    expect(spec.toolApprovals).toEqual({ pay: { when: [{ arg: 'amount', op: '>', value: 100 }] } });
    expect(JSON.parse(JSON.stringify(spec))).toEqual(spec);
  });

  it('decides built-in guardrails in the workflow: card numbers only when their checksum holds', () => {
    const pii = { name: 'pii', kind: 'pii' as const, types: ['credit_card' as const, 'email' as const] };
    expect(builtinVerdict(pii, 'card 4111 1111 1111 1111')).toEqual({
      tripped: true,
      reason: 'it contains personal data (credit card)',
    });
    expect(builtinVerdict(pii, 'order 4111 1111 1111 1112')).toEqual({ tripped: false });
    expect(
      builtinVerdict({ name: 's', kind: 'jsonSchema', schema: { type: 'object', required: ['ok'] } }, '{"no":1}'),
    ).toEqual({ tripped: true, reason: '$.ok is required' });
    expect(builtinVerdict({ name: 's', kind: 'jsonSchema', schema: {} }, 'plain')).toEqual({
      tripped: true,
      reason: 'it is not JSON',
    });
  });

  it('checks JSON Schema as zod writes it', () => {
    const schema = z.toJSONSchema(
      z.object({
        id: z.string().min(2),
        n: z.number().int().max(3),
        tags: z.array(z.enum(['a', 'b'])).optional(),
        kind: z.union([z.literal('x'), z.literal('y')]),
      }),
    ) as Record<string, unknown>;
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
    expect(resolveRunOptions({ budget: 'medium', maxTokens: 1000 })).toMatchObject({
      maxHandoffs: 2,
      maxTokens: 1000,
      maxAgents: 3,
    });
    expect(runOptionProblems({ budget: 'huge', deadline: 'tomorrow', onLoop: 'warn', loopWindow: -1 })).toEqual([
      '"budget" must be "simple" or "medium" or "complex", got "huge"',
      '"deadline" must be a duration from the start such as "10 minutes", or an ISO 8601 time such as "2026-01-31T17:00:00Z", got "tomorrow"',
      '"loopWindow" must be an integer >= 0 and <= 100, got -1',
      '"onLoop" must be "fail" or "refuse", got "warn"',
    ]);
  });
});
