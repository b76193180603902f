import { describe, expect, it } from 'vitest';
import { team } from '../../examples/research/team';
import { recordingScripted } from '../helpers/models';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();

describe('the research example', () => {
  it('fans out to two specialists at once, joins their answers and hands off to the writer', async () => {
    const { calls, providers } = recordingScripted();
    const { result, audit } = await withWorker(
      server.env,
      team,
      async (baton) => {
        const r = await baton.run('researcher', 'Explain quantum computing for a newsletter');
        return { result: r, audit: await baton.audit(r.workflowId) };
      },
      { providers },
    );
    expect(result.finalAgent).toBe('writer');
    expect(result.handoffChain.map((h) => `${h.from}>${h.to}`)).toEqual(['researcher>writer']);
    const joined = calls
      .filter((c) => c.agentId === 'researcher')[1]!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => m.content);
    expect(joined).toEqual([
      expect.stringMatching(/^Answer from physics: Qubits hold superpositions/),
      expect.stringMatching(/^Answer from engineering: Error correction needs about 1000/),
    ]);
    expect(audit.children?.map((c) => c.input?.agent).sort()).toEqual(['engineering', 'physics']);
    // Both specialists started before either answered: they ran side by side.
    const delegations = audit.events.filter((e) => e.kind === 'delegation');
    expect(delegations).toHaveLength(2);
    expect(delegations[1]!.at <= (audit.children![0]!.closedAt ?? '')).toBe(true);
  });
});
