import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, Team, ToolError } from '../../src';
import { createHandoffTool } from '../../src/agents';
import { UserError } from '../../src/workflow';
import { scriptedAgent } from '../helpers/agents';

describe('defineTool', () => {
  const lookup = defineTool({
    name: 'lookupOrder',
    description: 'Find an order',
    parameters: z.object({ orderId: z.string().describe('the id'), verbose: z.boolean().optional() }),
    execute: ({ orderId }) => orderId,
  });

  it('derives the JSON Schema the model sees from the zod schema', () => {
    expect(lookup.spec.name).toBe('lookupOrder');
    expect(lookup.spec.parameters).toMatchObject({
      type: 'object',
      properties: { orderId: { type: 'string', description: 'the id' }, verbose: { type: 'boolean' } },
      required: ['orderId'],
    });
    expect(lookup.spec.parameters).not.toHaveProperty('$schema');
  });

  it('rejects bad names, reserved names, missing descriptions and non-zod parameters', () => {
    const base = { description: 'd', parameters: z.object({}), execute: () => 1 };
    expect(() => defineTool({ ...base, name: 'has space' })).toThrow(/letters, digits/);
    expect(() => defineTool({ ...base, name: 'handoff' })).toThrow(/reserved/);
    expect(() => defineTool({ ...base, name: 'handoff_to_sales' })).toThrow(/reserved/);
    expect(() => defineTool({ ...base, name: 'ok', description: ' ' })).toThrow(/description/);
    expect(() => defineTool({ ...base, name: 'ok', parameters: { type: 'object' } as never })).toThrow(
      /zod v4 object schema/,
    );
    expect(() => defineTool({ ...base, name: 'bad name' })).toThrow(UserError);
  });
});

describe('createHandoffTool', () => {
  const targets = [
    { id: 'writer', description: 'Writes articles' },
    { id: 'analyst', description: 'Crunches numbers' },
  ];

  it('is named handoff, with `to` an enum of the targets and `message` a string', () => {
    const tool = createHandoffTool('researcher', targets);
    expect(tool?.name).toBe('handoff');
    expect(tool?.parameters).toMatchObject({
      type: 'object',
      properties: { to: { type: 'string', enum: ['writer', 'analyst'] }, message: { type: 'string' } },
      required: ['to', 'message'],
    });
  });

  it('lists every target with its description', () => {
    const tool = createHandoffTool('researcher', targets);
    expect(tool?.description).toContain('- writer: Writes articles');
    expect(tool?.description).toContain('- analyst: Crunches numbers');
  });

  it('describes the agent itself as a fresh restart when it is a target', () => {
    const tool = createHandoffTool('researcher', [...targets, { id: 'researcher', description: 'Researches' }]);
    expect(tool?.parameters).toMatchObject({ properties: { to: { enum: ['writer', 'analyst', 'researcher'] } } });
    expect(tool?.description).toMatch(/- researcher: yourself/);
  });

  it('does not exist without targets', () => {
    expect(createHandoffTool('solo', [])).toBeUndefined();
  });
});

describe('sensitive tools', () => {
  const parameters = z.object({
    cardNumber: z.string(),
    amount: z.number(),
    customer: z.object({ email: z.string(), name: z.string() }),
  });
  const base = { name: 'charge', description: 'Charge a card', parameters, execute: () => ({ token: 'tok_1' }) };
  const lookup = defineTool({
    name: 'lookupOrder',
    description: 'Find an order',
    parameters: z.object({ orderId: z.string() }),
    execute: ({ orderId }) => orderId,
  });

  it('record what is sensitive beside the tool, not in the spec the model gets, and in the team snapshot by tool name', () => {
    const charge = defineTool({
      ...base,
      sensitive: { arguments: ['cardNumber', 'customer.email'], result: ['token'] },
    });
    expect(charge.sensitivity).toEqual({ arguments: ['cardNumber', 'customer.email'], result: ['token'] });
    expect(Object.keys(charge.spec)).toEqual(['name', 'description', 'parameters']);
    expect(JSON.stringify(charge.spec)).not.toContain('sensitive');
    const all = defineTool({ ...base, name: 'chargeAll', sensitive: true });
    expect(all.sensitivity).toEqual({ arguments: true, result: true });
    const spec = new Team([scriptedAgent('payments', [], { tools: [charge, all, lookup] })]).spec();
    expect(spec.agents.payments!.toolSensitivity).toEqual({
      charge: { arguments: ['cardNumber', 'customer.email'], result: ['token'] },
      chargeAll: { arguments: true, result: true },
    });
    expect(spec.agents.payments!.tools.map((t) => Object.keys(t))).toEqual([
      ['name', 'description', 'parameters'],
      ['name', 'description', 'parameters'],
      ['name', 'description', 'parameters'],
    ]);
    expect(new Team([scriptedAgent('plain', [], { tools: [lookup] })]).spec().agents.plain).not.toHaveProperty(
      'toolSensitivity',
    );
  });

  it('are refused with every problem named: argument paths the zod schema does not have, and a bad option', () => {
    expect(() =>
      defineTool({ ...base, sensitive: { arguments: ['cardNumbr', 'customer.emial', 'amount.cents'] as never } }),
    ).toThrow(
      new UserError(
        'Invalid tool "charge": ' +
          'sensitive.arguments[0] "cardNumbr": not an argument of charge (its arguments: amount, cardNumber, customer); ' +
          'sensitive.arguments[1] "customer.emial": customer has no field "emial" (its fields: email, name); ' +
          'sensitive.arguments[2] "amount.cents": amount is a number, with no fields',
      ),
    );
    expect(() => defineTool({ ...base, sensitive: { arguments: 'cardNumber' } as never })).toThrow(
      'sensitive.arguments must be true or a non-empty list of paths like ["cardNumber", "customer.email"], got "cardNumber"',
    );
    expect(() => defineTool({ ...base, sensitive: { result: 'token' } as never })).toThrow(
      'sensitive.result must be true or a non-empty list of paths like ["token"], got "token"',
    );
    expect(() => defineTool({ ...base, sensitive: { args: ['cardNumber'] } as never })).toThrow(
      'sensitive has unknown field(s) "args" (valid: arguments, result)',
    );
    expect(() => defineTool({ ...base, sensitive: {} })).toThrow(/sensitive names nothing sensitive: give arguments/);
    expect(() => defineTool({ ...base, sensitive: 'yes' as never })).toThrow(
      'sensitive must be true (every argument and the whole result) or {arguments?, result?}, got "yes"',
    );
    expect(() => defineTool({ ...base, sensitive: { arguments: ['customer..email'] as never } })).toThrow(
      'sensitive.arguments[0] must be a dotted path of field names like "customer.email", got "customer..email"',
    );
  });

  it('type their argument paths from the zod schema', () => {
    // @ts-expect-error "cardNumbr" is not a path of the arguments
    expect(() => defineTool({ ...base, sensitive: { arguments: ['cardNumbr'] } })).toThrow(UserError);
    defineTool({
      ...base,
      sensitive: { arguments: ['customer.email', 'customer'], result: ['anything.the.tool.returns'] },
    });
  });

  it('take the sensitive argument values out of an error execute throws, and leave a ToolError to the model', async () => {
    const failing = defineTool({
      ...base,
      sensitive: { arguments: ['cardNumber', 'customer.email'] },
      execute: ({ cardNumber, customer }) => {
        throw new Error(`card ${cardNumber} of ${customer.email} was declined`);
      },
    });
    const args = { cardNumber: '4111111111111111', amount: 5, customer: { email: 'ann@example.com', name: 'Ann' } };
    const thrown = await Promise.resolve(failing.execute(args, {} as never)).catch((err: Error) => err);
    expect((thrown as Error).message).toBe('card [redacted] of [redacted] was declined');
    expect((thrown as Error).stack).not.toContain('4111111111111111');
    const told = defineTool({
      ...base,
      name: 'told',
      sensitive: { arguments: ['cardNumber'] },
      execute: ({ cardNumber }) => {
        throw new ToolError(`card ${cardNumber} declined`);
      },
    });
    const answer = await Promise.resolve(told.execute(args, {} as never)).catch((err: Error) => err);
    expect(answer).toBeInstanceOf(ToolError);
    expect((answer as Error).message).toBe('card 4111111111111111 declined');
  });
});
