/**
 * Researcher → writer. Runs on the scripted model when OPENAI_API_KEY is unset.
 */
import { z } from 'zod';
import { defineAgent, defineTool, openai, scripted, Team, type ScriptedRule } from '../../src';

const model = (rules: ScriptedRule[]) =>
  process.env.OPENAI_API_KEY ? openai(process.env.BATON_MODEL ?? 'gpt-4o-mini') : scripted({ model: 'scripted-research', rules });

const notes: Record<string, string> = {
  quantum: 'Qubits hold superpositions; error correction needs ~1000 physical qubits per logical qubit.',
  temporal: 'Temporal records every workflow step in an event history and replays it to recover state.',
};

export const searchNotes = defineTool({
  name: 'searchNotes',
  description: 'Search the research notes for a topic',
  parameters: z.object({ topic: z.string() }),
  execute: ({ topic }) => notes[topic.toLowerCase()] ?? `No notes on ${topic}.`,
});

export const researcher = defineAgent({
  id: 'researcher',
  name: 'Researcher',
  description: 'Finds facts on a topic',
  instructions: 'Research the topic with searchNotes, then hand off to the writer with your findings.',
  model: model([
    { whenIncludes: 'qubits', reply: { handoff: { to: 'writer', message: 'Write a short paragraph: qubits hold superpositions; error correction needs ~1000 physical qubits per logical one.' } } },
    { whenIncludes: '', reply: { toolCalls: [{ name: 'searchNotes', arguments: { topic: 'quantum' } }] } },
  ]),
  tools: [searchNotes],
});

export const writer = defineAgent({
  id: 'writer',
  name: 'Writer',
  description: 'Writes articles from research findings',
  instructions: 'Write a clear, short article from the findings you are given.',
  model: model([
    {
      whenIncludes: '',
      reply: { text: 'Quantum computers store information in qubits, which can hold superpositions. Making them reliable is costly: about a thousand physical qubits are needed for each error-corrected logical qubit.' },
    },
  ]),
});

export const team = new Team([researcher, writer]);
