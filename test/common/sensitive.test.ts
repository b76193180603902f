import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { PendingApproval } from '../../src/common/approvals';
import { validateRunInput } from '../../src/common/input';
import {
  REDACTED,
  redactArguments,
  redactPendingApproval,
  redactResult,
  redactValue,
  scrub,
  sensitiveValues,
  TeamRedaction,
} from '../../src/common/sensitive';
import { sensitivityProblems, toolSensitivityCheck, toSensitivitySpec } from '../../src/common/sensitivityChecks';
import { schemaPathProblem } from '../../src/common/schemaPaths';
import type { TeamSpec } from '../../src/common/team';
import { toParametersSchema } from '../../src/agents/tool';

const card = {
  cardNumber: '4111111111111111',
  amount: 25,
  customer: { email: 'ann@example.com', name: 'Ann' },
  items: [
    { sku: 'A1', serial: 'SN-1234' },
    { sku: 'B2', serial: 'SN-5678' },
  ],
};
const text = JSON.stringify(card);

describe('redacting values', () => {
  it('replaces the values at dotted paths, through lists to each item, and leaves the rest', () => {
    expect(JSON.parse(redactArguments(text, { arguments: ['cardNumber', 'customer.email', 'items.serial'] }))).toEqual({
      cardNumber: REDACTED,
      amount: 25,
      customer: { email: REDACTED, name: 'Ann' },
      items: [
        { sku: 'A1', serial: REDACTED },
        { sku: 'B2', serial: REDACTED },
      ],
    });
  });

  it('redacts every argument with true, a whole object at its path, and skips paths the call does not have', () => {
    expect(JSON.parse(redactArguments('{"a":1,"b":{"c":2}}', { arguments: true }))).toEqual({
      a: REDACTED,
      b: REDACTED,
    });
    expect(redactValue({ customer: { email: 'x' } }, ['customer'])).toEqual({ customer: REDACTED });
    expect(redactValue({ amount: 1 }, ['customer.email', 'amount.cents'])).toEqual({ amount: 1 });
  });

  it('redacts arguments that are not a JSON object whole, and leaves them alone when nothing is sensitive', () => {
    expect(redactArguments('{"cardNumber": 4111', { arguments: ['cardNumber'] })).toBe(REDACTED);
    expect(redactArguments('[1,2]', { arguments: ['cardNumber'] })).toBe(REDACTED);
    expect(redactArguments(text, { result: true })).toBe(text);
    expect(redactArguments(text, undefined)).toBe(text);
    expect(JSON.parse(redactArguments('', { arguments: ['cardNumber'] }))).toEqual({});
  });

  it('redacts a result whole, or at paths when it is JSON (whole when it is not), and takes sensitive argument values out of it', () => {
    expect(redactResult('{"token":"tok_1","last4":"1111"}', { result: true })).toBe(REDACTED);
    expect(JSON.parse(redactResult('{"token":"tok_1","card":{"last4":"1111"}}', { result: ['token'] }))).toEqual({
      token: REDACTED,
      card: { last4: '1111' },
    });
    expect(JSON.parse(redactResult('[{"token":"a"},{"token":"b"}]', { result: ['token'] }))).toEqual([
      { token: REDACTED },
      { token: REDACTED },
    ]);
    expect(redactResult('charged, token tok_1', { result: ['token'] })).toBe(REDACTED);
    expect(redactResult('"tok_1"', { result: ['token'] })).toBe(REDACTED);
    expect(redactResult('charged card 4111111111111111', { arguments: ['cardNumber'] }, text)).toBe(
      `charged card ${REDACTED}`,
    );
  });

  it('keeps an error answer, taking only the sensitive argument values out of it', () => {
    const spec = { arguments: ['cardNumber'], result: true as const };
    expect(redactResult('Error: card 4111111111111111 declined', spec, text, false)).toBe(
      `Error: card ${REDACTED} declined`,
    );
    expect(
      redactResult(
        'Error: the arguments of pay are not valid JSON: {"cardNumber": 41',
        spec,
        '{"cardNumber": 41',
        false,
      ),
    ).toBe(`Error: the arguments of pay are not valid JSON: ${REDACTED}`);
  });

  it('scrubs values of four characters or more, longest first, strings as JSON escapes them too', () => {
    expect(sensitiveValues(text, { arguments: ['customer'] })).toEqual(
      expect.arrayContaining(['ann@example.com', 'Ann']),
    );
    expect(scrub('Ann paid 25 as ann@example.com', sensitiveValues(text, { arguments: ['customer', 'amount'] }))).toBe(
      `Ann paid 25 as ${REDACTED}`,
    );
    expect(scrub('say \\"hi\\" there', sensitiveValues('{"note":"say \\"hi\\""}', { arguments: ['note'] }))).toBe(
      `${REDACTED} there`,
    );
  });

  it('redacts a waiting tool call in its arguments and in the message that repeats them', () => {
    const p: PendingApproval = {
      handoffId: 'tool-1',
      from: 'payments',
      to: 'tool:charge',
      message: `charge(${text})`,
      requestedAt: '2025-01-01T00:00:00.000Z',
      onTimeout: 'reject',
      tool: { name: 'charge', arguments: text, toolCallId: 'c1', callHash: 'h' },
    };
    const redacted = redactPendingApproval(p, { arguments: ['cardNumber'] });
    expect(JSON.parse(redacted.tool!.arguments)).toMatchObject({ cardNumber: REDACTED, amount: 25 });
    expect(redacted.message).toBe(`charge(${redacted.tool!.arguments})`);
    expect(redacted.message).not.toContain('4111111111111111');
    expect(redactPendingApproval(p, undefined)).toBe(p);
  });
});

describe('a team snapshot', () => {
  const team: TeamSpec = {
    agents: {
      payments: {
        id: 'payments',
        name: 'payments',
        description: '',
        instructions: '',
        model: { provider: 'scripted', model: 'scripted' } as never,
        tools: [],
        handoffs: [],
        toolSensitivity: { charge: { arguments: ['cardNumber'], result: ['token'] } },
      },
    },
    approvals: [],
    hasHandoffListeners: false,
  };

  it('says what is sensitive per agent and tool, and redacts a conversation by call id, else by position', () => {
    const redaction = new TeamRedaction(team);
    expect(redaction.any).toBe(true);
    expect(redaction.of('payments', 'charge')).toEqual({ arguments: ['cardNumber'], result: ['token'] });
    expect(redaction.of('payments', 'lookup')).toBeUndefined();
    expect(redaction.of(undefined, 'charge')).toBeDefined();
    const messages = redaction.messages('payments', [
      { role: 'user', content: 'pay' },
      { role: 'assistant', content: null, toolCalls: [{ id: '', name: 'charge', arguments: text }] },
      { role: 'tool', toolCallId: '', content: '{"token":"tok_1","ok":true}' },
    ]);
    expect(JSON.parse((messages[1] as { toolCalls: { arguments: string }[] }).toolCalls[0]!.arguments)).toMatchObject({
      cardNumber: REDACTED,
    });
    expect(JSON.parse((messages[2] as { content: string }).content)).toEqual({ token: REDACTED, ok: true });
    expect(new TeamRedaction(undefined).any).toBe(false);
  });

  it('is checked strictly when a run carries it: a bad toolSensitivity entry is named', () => {
    expect(toolSensitivityCheck({ arguments: ['cardNumber'], result: true }, 'toolSensitivity.charge')).toEqual([]);
    expect(toolSensitivityCheck({ arguments: 'cardNumber' }, 'toolSensitivity.charge')).toEqual([
      '"toolSensitivity.charge.arguments" must be true or a non-empty list of paths like ["cardNumber", "customer.email"], got "cardNumber"',
    ]);
    expect(toolSensitivityCheck(true, 'toolSensitivity.charge')).toEqual([
      '"toolSensitivity.charge" must be an object {arguments?, result?}, got true',
    ]);
    expect(() =>
      validateRunInput({
        agent: 'payments',
        input: 'x',
        resume: {
          team: {
            ...team,
            agents: { payments: { ...team.agents.payments, toolSensitivity: { charge: { args: [] } } } },
          },
        },
      }),
    ).toThrow(
      /"resume.team.agents.payments.toolSensitivity.charge" has unknown field\(s\) "args" \(valid: arguments, result\)/,
    );
  });
});

describe('declaring what is sensitive', () => {
  const parameters = toParametersSchema(
    z.object({
      cardNumber: z.string(),
      amount: z.number(),
      customer: z.object({ email: z.string(), name: z.string().optional() }).nullable(),
      items: z.array(z.object({ sku: z.string() })),
      meta: z.record(z.string(), z.string()),
      anything: z.any(),
      method: z.union([z.object({ iban: z.string() }), z.object({ card: z.string() })]),
    }),
  );

  it('accepts paths into nested, nullable, listed, union, record and untyped fields', () => {
    for (const path of [
      'cardNumber',
      'customer',
      'customer.email',
      'items.sku',
      'meta.anyKey',
      'anything.deep.down',
      'method.iban',
      'method.card',
    ]) {
      expect(schemaPathProblem(parameters, path, 'pay')).toBeUndefined();
    }
  });

  it('names a path the schema does not have, with the fields there are', () => {
    expect(schemaPathProblem(parameters, 'cardNumbr', 'pay')).toBe(
      'not an argument of pay (its arguments: amount, anything, cardNumber, customer, items, meta, method)',
    );
    expect(schemaPathProblem(parameters, 'customer.emial', 'pay')).toBe(
      'customer has no field "emial" (its fields: email, name)',
    );
    expect(schemaPathProblem(parameters, 'items.qty', 'pay')).toBe('items has no field "qty" (its fields: sku)');
    expect(schemaPathProblem(parameters, 'amount.cents', 'pay')).toBe('amount is a number, with no fields');
  });

  it('follows recursive schemas through their references, and takes an object schema with no fields as open', () => {
    const Node: z.ZodType = z.object({
      name: z.string(),
      get children() {
        return z.array(Node);
      },
    });
    const tree = toParametersSchema(z.object({ tree: Node as never }));
    expect(schemaPathProblem(tree, 'tree.children.children.name')).toBeUndefined();
    expect(schemaPathProblem(tree, 'tree.children.nme')).toBe(
      'tree.children has no field "nme" (its fields: children, name)',
    );
    expect(schemaPathProblem({ type: 'object' }, 'any.thing')).toBeUndefined();
    expect(schemaPathProblem({ type: 'object', properties: { email: { type: 'string' } } }, 'emial')).toBe(
      'not an argument of the tool (its arguments: email)',
    );
  });

  it('names every problem of the option and what would be valid', () => {
    expect(sensitivityProblems(5, 'sensitive')).toEqual([
      'sensitive must be true (every argument and the whole result) or {arguments?, result?}, got 5',
    ]);
    expect(sensitivityProblems({}, 'sensitive')).toEqual([
      expect.stringMatching(/^sensitive names nothing sensitive: give arguments/),
    ]);
    expect(sensitivityProblems({ args: ['x'], result: 'token' }, 'sensitive')).toEqual([
      'sensitive has unknown field(s) "args" (valid: arguments, result)',
      'sensitive.result must be true or a non-empty list of paths like ["token"], got "token"',
    ]);
    expect(sensitivityProblems({ args: ['x'] }, 'sensitive')).toEqual([
      'sensitive has unknown field(s) "args" (valid: arguments, result)',
      'sensitive names nothing sensitive: give arguments (true or paths like ["cardNumber", "customer.email"]), result (true or paths like ["token"]), or both',
    ]);
    expect(sensitivityProblems({ arguments: ['ok', 'a..b', '', ' x', 3], result: [] }, 'sensitive')).toEqual([
      'sensitive.arguments[1] must be a dotted path of field names like "customer.email", got "a..b"',
      'sensitive.arguments[2] must be a dotted path of field names like "customer.email", got ""',
      'sensitive.arguments[3] must be a dotted path of field names like "customer.email", got " x"',
      'sensitive.arguments[4] must be a dotted path of field names like "customer.email", got 3',
      'sensitive.result must be true or a non-empty list of paths like ["token"], got []',
    ]);
    expect(
      sensitivityProblems({ arguments: ['cardNumber', 'customer.emial'] }, 'sensitive', parameters, 'pay'),
    ).toEqual(['sensitive.arguments[1] "customer.emial": customer has no field "emial" (its fields: email, name)']);
  });

  it('records true as every argument and the whole result, and paths without repeats', () => {
    expect(toSensitivitySpec(true)).toEqual({ arguments: true, result: true });
    expect(toSensitivitySpec({ arguments: ['a', 'a', 'b'] })).toEqual({ arguments: ['a', 'b'] });
  });
});
