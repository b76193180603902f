/**
 * baton's activities: every side effect of a run. Workflows import only the type.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { PriceTable } from '../src/common/economics/prices';
import { economicsActivities } from './economics';
import type { BatonHooks } from '../src/agents/hooks';
import type { Team } from '../src/agents/team';
import { ModelRequestError, toApplicationFailure, UserError } from '../src/common/errors';
import type {
  CallModelInput,
  LocalModelCall,
  ModelResponse,
  RouteSpecialistInput,
  RouteSpecialistResult,
  SummarizeInput,
  SummarizeResult,
} from '../src/common/model';
import type { TeamSpec } from '../src/common/team';
import type { TeamNeed } from '../src/common/version';
import { withAiSdkProvider } from '../src/models/aiSdk';
import { OpenAIProvider } from '../src/models/openai';
import type { ModelProviders } from '../src/models/provider';
import { ScriptedProvider } from '../src/models/scripted';
import type { McpTools } from '../src/mcp/tools';
import { checkAnswer, checkHandoffInputs, SUMMARY_INSTRUCTIONS } from './answer';
import { previousHeartbeat, whileHeartbeating, type HeartbeatMode } from './heartbeat';
import { handoffActivities } from './handoffs';
import { toolActivities } from './tools';
import { teamCheck } from './teamCheck';
import { staleTeamCheck } from './staleTeam';
import { textPublisher } from './streaming';
import type { StreamTransport } from '../src/streams/types';
import { routeSpecialist } from './routing';
import { specialistFigures } from './figures';
import type { SpecialistFigures, SpecialistFiguresInput } from '../src/common/routing';
import { remoteActivities } from './a2a';
import { specialistActivities } from './specialists';
import { notifyActivities } from './notify';
import { keySetSnapshots } from './keySets';
import type { KeySetRecord } from '../src/common/signatures/jwks';

/** What the activities need from the worker. */
export interface ActivityDependencies {
  team: Team;
  providers?: ModelProviders;
  hooks?: BatonHooks;
  /** The worker's connected MCP servers: their tools join the snapshot, and `runTool` calls them. */
  mcp?: McpTools;
  /** Whether the worker's namespace has the `BatonTeam` search attribute, so runs may write it. */
  teamAttribute?: boolean;
  /** Whether the worker's namespace has baton's approval search attributes, so runs may write them. */
  approvalAttributes?: boolean;
  /** The worker's Temporal client, for the shared spend ledgers and breakers (made when first needed). */
  client?: () => Client;
  /**
   * The team's snapshot as the worker built it (with the same hooks, MCP tools and prices), so it is built once.
   * @default built from `team` when first needed
   */
  teamSpec?: TeamSpec;
  /** The worker's prices, over the team's: recorded with the team snapshot. */
  prices?: PriceTable;
  /** The largest model-call conversation a chain may send (see `TeamSpec.payloadLimit`); none when payloads are compressed or claim-checked. */
  payloadLimit?: number;
  /** Where model calls of chains that stream publish their text as it forms; none: only history tells. */
  streams?: StreamTransport;
  /** Told of each heartbeat a call sends (the worker's metrics count them as actions). */
  onHeartbeat?: () => void;
  /** The keys of the team's published key sets a new snapshot records (`TeamSpec.keySets`); none when the team names no `jwks`. */
  keySets?: () => Promise<KeySetRecord[]>;
}

/** Build the activities for one worker. */
export function createActivities({
  team,
  teamSpec,
  providers = {},
  hooks = {},
  mcp,
  teamAttribute,
  approvalAttributes,
  client,
  prices,
  payloadLimit,
  streams,
  onHeartbeat,
  keySets,
}: ActivityDependencies) {
  const beat = (mode: HeartbeatMode = {}): HeartbeatMode => (onHeartbeat ? { ...mode, sent: onHeartbeat } : mode);
  const resolved: ModelProviders = {
    openai: new OpenAIProvider(),
    scripted: new ScriptedProvider(),
    ...withAiSdkProvider(team.agents, providers),
  };
  const handoffListeners = hooks.agent_handoff ?? [];
  let snapshot: TeamSpec | undefined;
  const spec = () =>
    (snapshot ??= {
      ...(teamSpec ?? team.spec({ hasHandoffListeners: handoffListeners.length > 0, mcpTools: mcp?.specs, prices })),
      ...(teamAttribute ? { teamAttribute } : {}),
      ...(approvalAttributes ? { approvalAttributes } : {}),
      ...(payloadLimit ? { payloadLimit } : {}),
    });
  const refuseMismatch = teamCheck(spec, () => Object.keys(resolved));
  const refuseStale = staleTeamCheck(client, spec);
  const withKeySets = keySetSnapshots();

  /** One model turn of one agent; heartbeats while it waits, so a dead worker's call is retried in seconds. */
  async function callModel(input: CallModelInput): Promise<ModelResponse> {
    refuseMismatch('callModel', input.team);
    const ctx = Context.current();
    const provider = resolved[input.model.provider];
    if (!provider) {
      const known = Object.keys(resolved).join(', ');
      throw toApplicationFailure(
        new ModelRequestError(
          `this worker has no model provider "${input.model.provider}" (it has ${known}); register it with createWorker({providers})`,
        ),
      );
    }
    const publisher = ctx.info.isLocal ? undefined : textPublisher(streams, ctx, input);
    let response: ModelResponse;
    try {
      response = await whileHeartbeating(
        ctx,
        (heartbeat) =>
          provider.call(input, {
            attempt: ctx.info.attempt,
            signal: ctx.cancellationSignal,
            sleep: (ms) => ctx.sleep(ms),
            heartbeat,
            previousHeartbeat: previousHeartbeat(ctx, input.lostWorker),
            ...(publisher ? { text: (piece: string) => publisher.write(piece) } : {}),
          }),
        input.lostWorker,
        // A streaming provider heartbeats every chunk; only the timed heartbeats reach the server.
        beat({ onTimer: true }),
      );
    } finally {
      await publisher?.flush();
    }
    const outputType = team.get(input.agentId)?.outputType;
    if (outputType && response.toolCalls.length === 0)
      return { ...response, output: checkAnswer(response.content, outputType) };
    const handoffInputs = checkHandoffInputs(team, spec(), input.agentId, response.toolCalls);
    return handoffInputs ? { ...response, handoffInputs } : response;
  }

  return {
    ...economicsActivities(client ?? noClient),
    ...remoteActivities(team, refuseMismatch),
    ...specialistActivities,
    ...notifyActivities(team.notifications),
    ...handoffActivities(team, handoffListeners, refuseMismatch),
    ...toolActivities(team, mcp, refuseMismatch, beat),
    /**
     * Snapshot of the team, recorded in history as the run's first step. A specialist's chain asks
     * for the team of the chain that delegated to it (`need.hash`).
     */
    async loadTeam(need?: TeamNeed): Promise<TeamSpec> {
      refuseMismatch('loadTeam', need);
      // A new chain (no team asked of this worker) only on a worker of the newest team registered on the queue.
      if (!need?.hash) await refuseStale('loadTeam');
      return keySets ? withKeySets(spec(), await keySets()) : spec();
    },

    /** One model turn of one agent; heartbeats while it waits, so a dead worker's call is retried in seconds. */
    callModel,

    /**
     * A model turn run as a local activity (`modelActivity: 'local'`): the same call, answered with
     * its input, because a local activity's marker in history records only its result, and the
     * audit and a replay read what the model was given from there.
     */
    async callModelLocal(input: CallModelInput): Promise<LocalModelCall> {
      return { input, response: await callModel(input) };
    },

    /** A summary of the conversation a handoff carries, by the source agent's model. */
    async summarizeHandoff(input: SummarizeInput): Promise<SummarizeResult> {
      refuseMismatch('summarizeHandoff', input.team);
      const ctx = Context.current();
      const provider = resolved[input.model.provider];
      if (!provider)
        throw toApplicationFailure(
          new ModelRequestError(`this worker has no model provider "${input.model.provider}"`),
        );
      const response = await whileHeartbeating(
        ctx,
        (heartbeat) =>
          provider.call(
            {
              agentId: input.agentId,
              model: input.model,
              purpose: 'summary',
              callIndex: 0,
              tools: [],
              messages: [
                {
                  role: 'system',
                  content: `${SUMMARY_INSTRUCTIONS}${input.instructions ? `\n${input.instructions}` : ''}`,
                },
                { role: 'user', content: input.transcript },
              ],
            },
            { attempt: ctx.info.attempt, signal: ctx.cancellationSignal, sleep: (ms) => ctx.sleep(ms), heartbeat },
          ),
        input.lostWorker,
        beat({ onTimer: true }),
      );
      return { summary: response.content ?? '', usage: response.usage };
    },

    /** A specialist for a routing request no profile matched, picked by the asking agent's model. */
    async routeSpecialist(input: RouteSpecialistInput): Promise<RouteSpecialistResult> {
      refuseMismatch('routeSpecialist', input.team);
      const ctx = Context.current();
      const provider = resolved[input.model.provider];
      if (!provider)
        throw toApplicationFailure(
          new ModelRequestError(`this worker has no model provider "${input.model.provider}"`),
        );
      return whileHeartbeating(
        ctx,
        (heartbeat) =>
          routeSpecialist(provider, input, {
            attempt: ctx.info.attempt,
            signal: ctx.cancellationSignal,
            sleep: (ms) => ctx.sleep(ms),
            heartbeat,
          }),
        input.lostWorker,
        beat({ onTimer: true }),
      );
    },

    /** What a routing strategy picks a specialist by: chains in flight and recent outcomes, from visibility. */
    async specialistFigures(input: SpecialistFiguresInput): Promise<SpecialistFigures> {
      refuseMismatch('specialistFigures', input.team);
      return specialistFigures(client?.(), input);
    },
  };
}

function noClient(): Client {
  throw toApplicationFailure(
    new UserError(
      'this worker has no Temporal client for spend limits and shared breakers; createWorker gives its activities one',
    ),
  );
}

/** The activities' interface, for `proxyActivities` in workflow code. */
export type BatonActivities = ReturnType<typeof createActivities>;
