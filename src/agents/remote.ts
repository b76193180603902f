/**
 * Remote specialists: an agent of another team, served over A2A (another baton team's `baton serve`,
 * or any A2A agent), that this team's agents delegate tasks to with `delegate(id)` as they delegate
 * to their own specialists. The team snapshot records where its tasks go; the credentials stay in
 * the worker.
 */
import { UserError } from '../common/errors';
import type { RemoteAgentSpec } from '../common/remote';
import { AGENT_ID, type Agent } from './agent';

/** How the worker authenticates to a remote agent. */
export interface RemoteAgentAuth {
  /** A bearer token, or a function that gives one at each call (a token that expires). */
  token: string | (() => string | Promise<string>);
}

/** A remote agent's definition; give `url` or `card`. */
export interface RemoteAgentOptions {
  /** Its id in this team, which `delegate(id)` names: a letter, then letters, digits, `_` or `-`, at most 64. */
  id: string;
  /** The A2A JSON-RPC endpoint its tasks go to, e.g. `https://billing.example.com/a2a` (baton serves it at `/a2a`). */
  url?: string;
  /** The URL of its A2A Agent Card, e.g. `https://billing.example.com/.well-known/agent-card.json`: its endpoint is read from it. */
  card?: string;
  /** What the `delegate` tool tells the model about it. @default the id */
  description?: string;
  /** The agent a task starts with there, sent as the message's `metadata.agent` (a baton team's entry agent otherwise). */
  agent?: string;
  /** Credentials the worker sends; never recorded in history. */
  auth?: RemoteAgentAuth;
}

/** A validated remote agent: what the snapshot records, and the worker's credentials for it. */
export interface RemoteAgent {
  readonly kind: 'remote';
  readonly id: string;
  readonly spec: RemoteAgentSpec;
  /** The headers a call sends (its `authorization`). */
  headers(): Promise<Record<string, string>>;
}

/**
 * Declare a remote agent for a team's `remotes`; throws a {@link UserError} naming every problem.
 * @example
 * const billing = remoteAgent({ id: 'billing', url: 'https://billing.example.com/a2a', auth: { token: process.env.BILLING_TOKEN! } });
 * const team = new Team([defineAgent({ id: 'triage', …, handoffs: [delegate('billing')] })], { remotes: [billing] });
 */
export function remoteAgent(options: RemoteAgentOptions): RemoteAgent {
  const o = options ?? ({} as RemoteAgentOptions);
  const problems: string[] = [];
  if (typeof o.id !== 'string' || !AGENT_ID.test(o.id))
    problems.push(
      `id ${JSON.stringify(o.id)} must start with a letter and use only letters, digits, "_" or "-" (at most 64)`,
    );
  if ((o.url === undefined) === (o.card === undefined))
    problems.push('give exactly one of url (its A2A JSON-RPC endpoint) and card (its Agent Card URL)');
  for (const key of ['url', 'card'] as const)
    if (o[key] !== undefined && !isHttpUrl(o[key]))
      problems.push(`${key} must be an http or https URL, got ${JSON.stringify(o[key])}`);
  if (o.description !== undefined && typeof o.description !== 'string') problems.push('description must be a string');
  if (o.agent !== undefined && (typeof o.agent !== 'string' || !AGENT_ID.test(o.agent)))
    problems.push(`agent must be an agent id of the remote team, got ${JSON.stringify(o.agent)}`);
  const token = o.auth?.token;
  if (o.auth !== undefined && ((typeof token !== 'string' && typeof token !== 'function') || token === ''))
    problems.push('auth.token must be a non-empty string or a function that returns one');
  if (problems.length > 0) throw new UserError(`Invalid remote agent ${JSON.stringify(o.id)}: ${problems.join('; ')}`);
  const spec: RemoteAgentSpec = {
    id: o.id,
    description: o.description ?? o.id,
    ...(o.url !== undefined ? { url: o.url } : {}),
    ...(o.card !== undefined ? { card: o.card } : {}),
    ...(o.agent !== undefined ? { agent: o.agent } : {}),
    ...(o.auth ? { auth: 'bearer' as const } : {}),
  };
  return {
    kind: 'remote',
    id: o.id,
    spec,
    async headers(): Promise<Record<string, string>> {
      if (token === undefined) return {};
      const value = typeof token === 'function' ? await token() : token;
      if (typeof value !== 'string' || value === '')
        throw new UserError(`the auth.token function of remote agent "${o.id}" gave no token`);
      return { authorization: `Bearer ${value}` };
    },
  };
}

/** A team's remote agents (`TeamOptions.remotes`), with the worker's credentials for them. */
export class Remotes {
  readonly #given: readonly RemoteAgent[];
  readonly #byId = new Map<string, RemoteAgent>();

  constructor(remotes: readonly RemoteAgent[] = []) {
    this.#given = remotes;
    for (const r of Array.isArray(remotes) ? remotes : []) if (r?.kind === 'remote') this.#byId.set(r.id, r);
  }

  /** The remote agent `id`, if the team has it. */
  get(id: string): RemoteAgent | undefined {
    return this.#byId.get(id);
  }

  /** Whether the team has a remote agent `id`. */
  has(id: string): boolean {
    return this.#byId.has(id);
  }

  /** Problems with the remote agents beside the team's agents: how they are made, their ids, and handoffs to them. */
  problems(agents: readonly Agent[]): string[] {
    if (!Array.isArray(this.#given)) return ['remotes must be an array of remoteAgent({...}) declarations'];
    const problems: string[] = [];
    const agentIds = new Set(agents.map((a) => a?.id));
    const ids = new Set<string>();
    for (const r of this.#given) {
      if (r?.kind !== 'remote') {
        problems.push('every remote must be made with remoteAgent()');
        continue;
      }
      if (ids.has(r.id)) problems.push(`duplicate remote agent id "${r.id}"`);
      if (agentIds.has(r.id)) problems.push(`remote agent "${r.id}" has the id of an agent of the team`);
      ids.add(r.id);
    }
    for (const agent of agents) {
      for (const to of agent?.kind === 'agent' ? (agent.handoffs ?? []) : []) {
        if (ids.has(to))
          problems.push(
            `agent "${agent.id}" lists handoff target "${to}", a remote agent: a remote agent answers tasks delegated to it, so declare delegate("${to}")`,
          );
      }
    }
    return problems;
  }

  /** The remote agents as the snapshot records them; nothing for a team without any. */
  spec(): { remotes?: Record<string, RemoteAgentSpec> } {
    return this.#byId.size > 0 ? { remotes: Object.fromEntries([...this.#byId].map(([id, r]) => [id, r.spec])) } : {};
  }
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
