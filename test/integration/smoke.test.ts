import { describe, expect, it } from 'vitest';
import { defineAgent, scripted, Team } from '../../src';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();

describe('smoke', () => {
  it('runs a two-agent chain', async () => {
    const team = new Team([
      defineAgent({ id: 'researcher', instructions: 'Research.', model: scripted([{ handoff: { to: 'writer', message: 'facts' } }]) }),
      defineAgent({ id: 'writer', instructions: 'Write.', model: scripted([{ text: 'article' }]) }),
    ]);
    const result = await withWorker(server.env, team, (baton) => baton.run('researcher', 'quantum'));
    expect(result.output).toBe('article');
    expect(result.finalAgent).toBe('writer');
    expect(result.handoffChain.map((h) => [h.from, h.to, h.message])).toEqual([['researcher', 'writer', 'facts']]);
  });
});
