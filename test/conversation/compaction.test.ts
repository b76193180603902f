import { describe, expect, it } from 'vitest';
import { scripted, Team } from '../../src';
import type { ChatMessage } from '../../src/workflow';
import {
  compacted,
  COMPACTION_INSTRUCTIONS,
  estimateTokens,
  planCompaction,
  SUMMARY_PREFIX,
  transcript,
} from '../../workflows/conversation/compaction';
import { scriptedAgent } from '../helpers/agents';
import { recordingScripted } from '../helpers/models';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

/** About 33 estimated tokens. */
const said = (n: number) => `message ${n}: ${'the customer explains the order again. '.repeat(4).slice(0, 120)}`;

describe('conversation compaction', () => {
  it('summarizes older turns through a recorded model call; the model then gets the summary and the recent turns', async () => {
    const recording = recordingScripted();
    const steps = Array.from({ length: 4 }, (_, i) => ({ text: `answer ${i + 1}` }));
    const team = new Team([
      scriptedAgent('solo', [], {
        model: scripted({
          steps,
          rules: [
            {
              whenIncludes: 'user: message',
              reply: {
                text: 'SUMMARY: the customer explained order 42 twice',
                usage: { inputTokens: 40, outputTokens: 10 },
              },
            },
          ],
          requireAllSteps: false,
        }),
      }),
    ]);
    const { replies, audit, view } = await withWorker(
      server.env,
      team,
      async (baton) => {
        const chat = baton.conversation('solo', { conversation: { compactAfterTokens: 60, keepRecentTurns: 1 } });
        const replies = [];
        for (let n = 1; n <= 4; n++) replies.push(await chat.send(said(n)));
        // The third compaction follows the last reply, while the conversation waits for a message.
        const view = await waitFor(
          () => chat.status(),
          (v) => v.compactions === 3,
        );
        return { replies, audit: await chat.audit(), view };
      },
      { providers: recording.providers },
    );
    expect(replies.map((r) => r.output)).toEqual(['answer 1', 'answer 2', 'answer 3', 'answer 4']);
    const summaries = recording.calls.filter((c) => c.purpose === 'summary');
    const turns = recording.calls.filter((c) => c.purpose === undefined);
    expect(turns).toHaveLength(4);
    // The first compaction (after turn 2) condenses turn 1; the next ones condense the summary and one more turn.
    expect(summaries).toHaveLength(3);
    expect(summaries[0]!.messages[0]!.content).toContain(COMPACTION_INSTRUCTIONS);
    expect(summaries[0]!.messages[1]!.content).toBe(`user: ${said(1)}\n\nassistant: answer 1`);
    expect(summaries[1]!.messages[1]!.content).toBe(
      `user: ${SUMMARY_PREFIX}SUMMARY: the customer explained order 42 twice\n\nuser: ${said(2)}\n\nassistant: answer 2`,
    );
    const summary = { role: 'user', content: `${SUMMARY_PREFIX}SUMMARY: the customer explained order 42 twice` };
    expect(turns[2]!.messages).toEqual([
      { role: 'system', content: 'You are solo.' },
      summary,
      { role: 'user', content: said(2) },
      { role: 'assistant', content: 'answer 2' },
      { role: 'user', content: said(3) },
    ]);
    expect(turns[3]!.messages).toEqual([
      { role: 'system', content: 'You are solo.' },
      summary,
      { role: 'user', content: said(3) },
      { role: 'assistant', content: 'answer 3' },
      { role: 'user', content: said(4) },
    ]);
    expect(view.usage.modelCalls).toBe(7);
    expect(audit.compactions).toMatchObject([
      { afterTurn: 2, agent: 'solo', summarizedMessages: 2, keptMessages: 2 },
      { afterTurn: 3, agent: 'solo', summarizedMessages: 3, keptMessages: 2 },
      { afterTurn: 4, agent: 'solo', summarizedMessages: 3, keptMessages: 2 },
    ]);
    expect(audit.compactions[0]!.tokensAfter).toBeLessThan(audit.compactions[0]!.tokensBefore);
  });
});

describe('planning a compaction', () => {
  const long = 'x'.repeat(400);
  const conversation: ChatMessage[] = [
    { role: 'system', content: 'You are solo.' },
    { role: 'user', content: long },
    { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{"id":42}' }] },
    { role: 'tool', toolCallId: 'c1', content: long },
    { role: 'assistant', content: 'found it' },
    { role: 'user', content: long },
    { role: 'assistant', content: null, toolCalls: [{ id: 'c2', name: 'lookup', arguments: '{"id":43}' }] },
    { role: 'tool', toolCallId: 'c2', content: long },
    { role: 'assistant', content: 'and this one' },
  ];

  it('cuts at a user message, so every kept tool answer keeps its call', () => {
    const plan = planCompaction(conversation, { compactAfterTokens: 100, keepRecentTurns: 1 })!;
    expect(plan.head).toEqual(conversation.slice(0, 1));
    expect(plan.older).toEqual(conversation.slice(1, 5));
    expect(plan.kept).toEqual(conversation.slice(5));
    expect(compacted(plan, 'S')).toEqual([
      conversation[0],
      { role: 'user', content: `${SUMMARY_PREFIX}S` },
      ...conversation.slice(5),
    ]);
    expect(estimateTokens(conversation)).toBe(plan.tokens);
    expect(transcript(plan.older).split('\n\n').slice(1, 3)).toEqual([
      'assistant: [called lookup({"id":42})]',
      `tool: ${long}`,
    ]);
  });

  it('leaves a conversation alone under the threshold, with no older turn to condense, or when switched off', () => {
    expect(planCompaction(conversation, { compactAfterTokens: 10_000, keepRecentTurns: 1 })).toBeUndefined();
    expect(planCompaction(conversation, { compactAfterTokens: 100, keepRecentTurns: 2 })).toBeUndefined();
    expect(planCompaction(conversation, { compactAfterTokens: 0, keepRecentTurns: 1 })).toBeUndefined();
  });
});
