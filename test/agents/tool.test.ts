import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHandoffTool, defineTool, UserError } from '../../src';

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
    expect(() => defineTool({ ...base, name: 'ok', parameters: { type: 'object' } as never })).toThrow(/zod v4 object schema/);
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
