/**
 * A lead researcher fans the question out to two specialists (physics and engineering) at once,
 * joins their answers and hands off to the writer. Runs on the scripted model when OPENAI_API_KEY
 * is unset.
 */
import { z } from 'zod';
import { defineAgent, defineTool, delegate, openai, scripted, Team } from 'baton-agents';
import type { ScriptedRule } from 'baton-agents/workflow';

const model = (rules: ScriptedRule[]) =>
  process.env.OPENAI_API_KEY
    ? openai(process.env.BATON_MODEL ?? 'gpt-4o-mini')
    : scripted({ model: 'scripted-research', rules });

const notes: Record<string, string> = {
  qubits: 'Qubits hold superpositions of 0 and 1; measuring one collapses it.',
  'error correction': 'Error correction needs about 1000 physical qubits per logical qubit today.',
  temporal: 'Temporal records every workflow step in an event history and replays it to recover state.',
};

export const searchNotes = defineTool({
  name: 'searchNotes',
  description: 'Search the research notes for a topic',
  parameters: z.object({ topic: z.string() }),
  execute: ({ topic }) => notes[topic.toLowerCase()] ?? `No notes on ${topic}.`,
});

const specialist = (id: string, field: string, topic: string) =>
  defineAgent({
    id,
    name: `${field} researcher`,
    description: `Researches the ${field.toLowerCase()} side of a question`,
    instructions: `You research the ${field.toLowerCase()} side of the question with searchNotes and answer with the facts you found.`,
    tools: [searchNotes],
    model: model([
      { whenIncludes: notes[topic]!.slice(0, 20), reply: { text: notes[topic]! } },
      { whenIncludes: '', reply: { toolCalls: [{ name: 'searchNotes', arguments: { topic } }] } },
    ]),
  });

export const physics = specialist('physics', 'Physics', 'qubits');
export const engineering = specialist('engineering', 'Engineering', 'error correction');

export const researcher = defineAgent({
  id: 'researcher',
  name: 'Lead researcher',
  description: 'Splits a question between specialists and brings their findings together',
  instructions:
    'Ask the physics and engineering researchers at once (two delegate calls), then hand their findings to the writer.',
  handoffs: ['writer', delegate('physics', { maxTurns: 4 }), delegate('engineering', { maxTurns: 4 })],
  model: model([
    {
      whenIncludes: 'Answer from engineering',
      reply: {
        handoff: {
          to: 'writer',
          message:
            'Write a short paragraph: qubits hold superpositions; error correction needs about 1000 physical qubits per logical qubit.',
        },
      },
    },
    {
      whenIncludes: '',
      reply: {
        toolCalls: [
          { name: 'delegate', arguments: { to: 'physics', task: 'What is a qubit?', reason: 'the physics side' } },
          {
            name: 'delegate',
            arguments: { to: 'engineering', task: 'What does error correction cost?', reason: 'the engineering side' },
          },
        ],
      },
    },
  ]),
});

export const writer = defineAgent({
  id: 'writer',
  name: 'Writer',
  description: 'Writes articles from research findings',
  instructions: 'Write a clear, short article from the findings you are given.',
  model: model([
    {
      whenIncludes: '',
      reply: {
        text: 'Quantum computers store information in qubits, which can hold superpositions. Making them reliable is costly: about a thousand physical qubits are needed for each error-corrected logical qubit.',
      },
    },
  ]),
});

export const team = new Team([researcher, physics, engineering, writer], { name: 'research' });
