import { defineAgent, scripted, type Agent, type AgentDefinition } from '../../src';
import type { ScriptedStep } from '../../src/workflow';

/** An agent on the scripted model, instructed `You are <id>.`: the tests' one way to make agents. */
export function scriptedAgent(id: string, steps: ScriptedStep[], extra: Partial<AgentDefinition> = {}): Agent {
  return defineAgent({ id, instructions: `You are ${id}.`, model: scripted(steps), ...extra });
}
