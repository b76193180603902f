/** What the Baton client checks of a decision before it reaches a chain. */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { Baton } from '../../src/client/baton';
import { UserError } from '../../src/common/errors';

// Every check here refuses before the client is used: a client that fails any call proves it.
const unused = new Proxy({}, { get: () => { throw new Error('the client was used'); } }) as Client;
const baton = new Baton({ client: unused });

describe('Baton decisions', () => {
  it('refuse edited arguments that are not a plain object, naming what they are', async () => {
    for (const [args, got] of [
      [[1, 2], 'a list'],
      ['{"amount":1}', 'string "{\\"amount\\":1}"'],
      [null, 'null'],
      [new Map([['amount', 1]]), 'a Map object'],
      [42, 'number 42'],
    ] as const) {
      const err = await baton.approve('wf', 'a1', { approver: 'alice', arguments: args as never }).catch((e: unknown) => e);
      expect(err, String(got)).toBeInstanceOf(UserError);
      expect((err as Error).message).toBe(`arguments must be a plain object of the tool's arguments, got ${got}`);
    }
  });

  it('refuse edited arguments on a rejection, a blank callHash and a blank approver', async () => {
    await expect(baton.reject('wf', 'a1', { approver: 'alice', arguments: { amount: 1 } })).rejects.toThrow('arguments go with an approval only');
    await expect(baton.approve('wf', 'a1', { approver: 'alice', callHash: '' })).rejects.toThrow('callHash must be the tool.callHash of the waiting call');
    await expect(baton.approve('wf', 'a1', { approver: ' ' })).rejects.toThrow('approver must name who decides');
  });
});
