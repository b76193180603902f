import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, openai, Team } from '../../src';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { Viewer } from '../helpers/viewer';

const temporal = useTemporalServer();
let fake: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  fake = await startOpenAIServer();
});
afterAll(() => fake.close());

const fastRetry = { initialInterval: '100 ms', maximumInterval: '200 ms' };

function team() {
  const model = openai('gpt-fake', { baseURL: fake.url, temperature: 0 });
  const lookup = defineTool({ name: 'lookup', description: 'Look up a topic', parameters: z.object({ topic: z.string() }), execute: ({ topic }) => `notes on ${topic}` });
  return new Team([
    defineAgent({ id: 'researcher', instructions: 'Research, then hand off.', model, tools: [lookup] }),
    defineAgent({ id: 'writer', description: 'Writes articles', instructions: 'Write.', model }),
  ]);
}

describe('run.stream()', () => {
  it('shows each model call\'s text as it forms, drops a cut-off attempt\'s text, and ends with the answers history records', async () => {
    const answer = 'Otters hold hands while they sleep so that the current does not carry them apart.';
    fake.replies.push(
      reply.toolCalls([{ name: 'lookup', arguments: { topic: 'otters' } }]),
      reply.toolCalls([{ name: 'handoff', arguments: { to: 'writer', message: 'write about otters' } }]),
      // The writer's first attempt breaks off mid-answer; the second writes it all.
      reply.text(answer, { chunkDelayMs: 15, cutAfterChunks: 8 }),
      reply.text(answer, { chunkDelayMs: 15 }),
    );
    await withWorker(temporal.env, team(), async (baton) => {
      const run = await baton.start('researcher', 'Tell me about otters', { retry: fastRetry });
      const viewer = new Viewer();
      const kinds: string[] = [];
      for await (const item of run.stream()) {
        viewer.apply(item);
        kinds.push(item.kind === 'text' ? `text:${item.call}` : item.kind === 'model_answered' ? `answered:${item.call}` : item.kind);
      }
      const result = await run.result();
      expect(result.output).toBe(answer);
      expect(viewer.text(run.workflowId, 'writer#0')).toBe(answer);
      // The text arrived in pieces before the call ended, and the cut-off attempt's text was dropped.
      expect(viewer.pieces.get(`${run.workflowId} writer#0`)).toBeGreaterThan(3);
      expect(kinds.indexOf('text:writer#0')).toBeLessThan(kinds.indexOf('answered:writer#0'));
      expect(viewer.resets.map((r) => `${r.call} ${r.reason}`)).toEqual(['writer#0 retry']);
      expect(kinds.at(-1)).toBe('completed');
    }, { worker: { maxConcurrentActivityTaskExecutions: 4 } });
  });
});
