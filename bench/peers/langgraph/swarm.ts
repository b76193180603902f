/**
 * The benchmark chain as a LangGraph swarm: agents c0 … cN built with the prebuilt ReAct agent,
 * each with the swarm's handoff tool to the next; the last one answers "done".
 */
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { createHandoffTool, createSwarm } from '@langchain/langgraph-swarm';
import { ScriptedChatModel } from './model';

export function chainSwarm(handoffs: number, latencyMs: number, checkpointer: BaseCheckpointSaver) {
  const agents = Array.from({ length: handoffs + 1 }, (_, i) => {
    const handoff = i < handoffs ? createHandoffTool({ agentName: `c${i + 1}` }) : undefined;
    return createReactAgent({
      llm: new ScriptedChatModel(handoff ? { handoffTool: handoff.name } : { text: 'done' }, latencyMs),
      tools: handoff ? [handoff] : [],
      name: `c${i}`,
      prompt: `Agent ${i} of the chain.`,
    });
  });
  return createSwarm({ agents, defaultActiveAgent: 'c0' }).compile({ checkpointer });
}
