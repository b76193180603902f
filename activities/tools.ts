/**
 * The activities that run the team's own code for a chain: a tool call (an agent's own tool, or
 * one of its MCP servers'), its arguments checked against the tool's parameters, and a custom
 * guardrail's check.
 */
import { Context } from '@temporalio/activity';
import { verdictOf } from '../src/agents/guardrails';
import type { Team } from '../src/agents/team';
import { ToolError } from '../src/agents/tool';
import { unknownToolAnswer } from '../src/common/answers';
import type { CheckGuardrailInput, GuardrailVerdict } from '../src/common/controls';
import { AgentNotFoundError, toApplicationFailure, UserError } from '../src/common/errors';
import type { RunToolInput, RunToolResult } from '../src/common/team';
import type { TeamNeed } from '../src/common/version';
import type { McpTools } from '../src/mcp/tools';
import { previousHeartbeat, whileHeartbeating, type HeartbeatMode } from './heartbeat';

/**
 * The tool and guardrail activities of a worker whose team is `team`, with its MCP servers' tools;
 * `beat` gives each call's heartbeats the worker's hook.
 */
export function toolActivities(
  team: Team,
  mcp: McpTools | undefined,
  refuseMismatch: (step: string, need: TeamNeed | undefined) => void,
  beat: (mode?: HeartbeatMode) => HeartbeatMode,
) {
  return {
    /** One tool call; `ok: false` results go back to the model, thrown errors are retried. */
    async runTool({
      agentId,
      call,
      idempotencyKey,
      context = {},
      lostWorker,
      team: need,
    }: RunToolInput): Promise<RunToolResult> {
      refuseMismatch('runTool', need);
      const ctx = Context.current();
      const tool = team.tool(agentId, call.name);
      if (!tool) {
        const agent = team.get(agentId);
        if (!agent) throw toApplicationFailure(new AgentNotFoundError(agentId, team.ids));
        const remote = mcp?.find(agent.mcpServers, call.name);
        if (remote) {
          // Unreachable servers are retried by the run's policy; the last attempt tells the model instead.
          const lastAttempt = ctx.info.attempt >= (ctx.info.retryPolicy?.maximumAttempts || Infinity);
          const options = {
            idempotencyKey,
            signal: ctx.cancellationSignal,
            timeoutMs: ctx.info.startToCloseTimeoutMs,
            lastAttempt,
          };
          return whileHeartbeating(
            ctx,
            (heartbeat) => mcp!.run(remote, call.arguments, { ...options, heartbeat }),
            lostWorker,
            beat(),
          );
        }
        return {
          ok: false,
          content: unknownToolAnswer(call.name, [...team.toolNames(agent), ...(mcp?.names(agent.mcpServers) ?? [])]),
        };
      }
      let raw: unknown;
      try {
        raw = JSON.parse(call.arguments || '{}');
      } catch {
        return { ok: false, content: `Error: the arguments of ${call.name} are not valid JSON: ${call.arguments}` };
      }
      const parsed = tool.parameters.safeParse(raw);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
        return { ok: false, content: `Error: invalid arguments for ${call.name}: ${issues}` };
      }
      try {
        const result = await whileHeartbeating(
          ctx,
          (heartbeat) =>
            tool.execute(parsed.data, {
              context,
              agentId,
              workflowId: ctx.info.workflowExecution?.workflowId ?? '',
              runId: ctx.info.workflowExecution?.runId ?? '',
              toolCallId: call.id,
              idempotencyKey,
              attempt: ctx.info.attempt,
              signal: ctx.cancellationSignal,
              heartbeat,
              previousHeartbeat: previousHeartbeat(ctx, lostWorker),
            }),
          lostWorker,
          beat(),
        );
        return { ok: true, content: typeof result === 'string' ? result : JSON.stringify(result ?? null) };
      } catch (err) {
        if (err instanceof ToolError) return { ok: false, content: `Error: ${err.message}`, failure: 'tool' };
        throw err;
      }
    },

    /** A custom guardrail of an agent on a text; a check that throws is retried like a tool call. */
    async checkGuardrail({
      agentId,
      guardrail,
      stage,
      text,
      context = {},
      team: need,
    }: CheckGuardrailInput): Promise<GuardrailVerdict> {
      refuseMismatch('checkGuardrail', need);
      const agent = team.get(agentId);
      if (!agent) throw toApplicationFailure(new AgentNotFoundError(agentId, team.ids));
      const g = agent.guardrails?.[stage]?.find((x) => x.spec.name === guardrail && x.check);
      if (!g?.check)
        throw toApplicationFailure(
          new UserError(
            `agent "${agentId}" has no custom ${stage} guardrail "${guardrail}" on this worker; the team module the worker loads must declare it`,
          ),
        );
      return verdictOf(await g.check(text, { agentId, stage, context }));
    },
  };
}
