/**
 * The Agent Card of a team served over A2A: one skill per agent (its description and capability
 * profile), the JSON-RPC interface at `<url>/a2a`, and the bearer tokens the service requires.
 */
import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill } from '@a2a-js/sdk';
import type { Team } from '../../agents/team';

/** How a team presents itself over A2A (`BatonServiceOptions.a2a`). */
export interface A2AOptions {
  /** The agents whose descriptions and profiles become the card's skills. @default the service's `agents`, each described by its id */
  team?: Team;
  /** The card's name. @default "baton" */
  name?: string;
  /** The card's description. @default a sentence naming the agents */
  description?: string;
  /** The agent a message starts with when it names none (`metadata.agent`). @default the team's first agent */
  agent?: string;
  /** The service's public address, for the card's interface URL (behind a proxy). @default the address the card was asked at */
  url?: string;
  /** The team's version on the card. @default "1" */
  version?: string;
}

/** What an A2A message starts with, and the card's skills. */
export interface A2ATeam {
  /** Agents that may start a chain, in the order given. */
  agents: readonly string[];
  skills: AgentSkill[];
  entry?: string;
}

/** The agents and skills of `options`, falling back to the service's agent list. */
export function a2aTeam(options: A2AOptions | undefined, agents: readonly string[] | undefined): A2ATeam {
  const team = options?.team;
  const ids = team ? team.ids : [...(agents ?? [])];
  const skills = ids.map((id): AgentSkill => {
    const agent = team?.get(id);
    const profile = agent?.profile;
    return {
      id,
      name: id,
      description: profile?.description ?? agent?.description ?? id,
      tags: profile ? [profile.specialization, ...profile.capabilities] : [],
      examples: profile?.examples ?? [],
      inputModes: ['text/plain', 'application/json'],
      outputModes: ['text/plain', 'application/json'],
      securityRequirements: [],
    };
  });
  const entry = options?.agent ?? ids[0];
  if (options?.agent !== undefined && ids.length > 0 && !ids.includes(options.agent)) {
    throw new Error(
      `a2a.agent must be one of the team's agents (${ids.join(', ')}), got ${JSON.stringify(options.agent)}`,
    );
  }
  return { agents: ids, skills, ...(entry !== undefined ? { entry } : {}) };
}

/** The card, its JSON-RPC interface at `base` + `/a2a`. */
export function agentCard(options: A2AOptions | undefined, team: A2ATeam, base: string): AgentCard {
  return {
    name: options?.name ?? 'baton',
    description:
      options?.description ??
      `A team of agents (${team.agents.join(', ') || 'as the workers serve them'}) that hand work to each other; sensitive steps wait for a person's approval. ` +
        'A task is a chain; a task in input-required waits for an approval, which an authorised approver decides by replying "approve" or "reject".',
    supportedInterfaces: [
      {
        url: `${(options?.url ?? base).replace(/\/$/, '')}/a2a`,
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: A2A_PROTOCOL_VERSION,
      },
    ],
    provider: undefined,
    version: options?.version ?? '1',
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            description: 'A static token or a JWT of the service, mapped to an identity and roles',
            scheme: 'Bearer',
            bearerFormat: 'JWT',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: team.skills,
    signatures: [],
  };
}
