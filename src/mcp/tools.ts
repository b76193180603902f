/**
 * The MCP tools of one worker: its servers connected at start, their tools as they join the team
 * snapshot, and each call as the `runTool` activity makes it.
 */
import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { type CallToolResult, McpError, type Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { duration, durationMs, oneOf } from '../common/check';
import { UserError } from '../common/errors';
import type { JsonSchema, ToolSpec } from '../common/model';
import type { RunToolResult } from '../common/team';
import { mayConnectLater, McpConnection } from './connection';
import { McpConnectionError, McpServerUnavailableError } from './errors';
import { IDEMPOTENCY_KEY_META, mcpToolName, type McpServer } from './server';
import type { McpToolSpecs } from './teamTools';

/** What a worker does about its team's MCP servers (`createWorker({ mcp })`). */
export interface McpWorkerOptions {
  /**
   * A server that cannot be reached when the worker starts: `fail` — the worker does not start
   * ({@link McpServerUnavailableError} names each server and why); `skip` — it starts without that
   * server's tools and logs which and why.
   * @default "fail"
   */
  onUnavailable?: 'fail' | 'skip';
  /**
   * Longest wait for a server to start and list its tools on the first try, and for each reconnect:
   * a duration or milliseconds. Each further try at start waits twice as long as the one before.
   * @default "30 seconds"
   */
  connectTimeout?: string | number;
  /**
   * Tries at start for a server that does not answer in time or whose connection fails or closes
   * (a process or port still starting, a machine under load), a second and more apart, each with
   * twice the time of the one before; a command that does not exist or a server that refuses baton
   * is not tried again.
   * @default 3
   */
  connectAttempts?: number;
}

/** Problems with {@link McpWorkerOptions}, each naming the option. */
export function mcpWorkerOptionsProblems(options: McpWorkerOptions): string[] {
  return [
    ...oneOf(['fail', 'skip'])(options.onUnavailable ?? 'fail', 'mcp.onUnavailable'),
    ...(options.connectTimeout === undefined ? [] : duration(options.connectTimeout, 'mcp.connectTimeout')),
    ...(options.connectAttempts === undefined ||
    (Number.isInteger(options.connectAttempts) && options.connectAttempts >= 1 && options.connectAttempts <= 10)
      ? []
      : [`"mcp.connectAttempts" must be a whole number from 1 to 10, got ${JSON.stringify(options.connectAttempts)}`]),
  ];
}

/** Throws a {@link UserError} naming every problem with {@link McpWorkerOptions}. */
export function checkMcpWorkerOptions(options: McpWorkerOptions): void {
  const problems = mcpWorkerOptionsProblems(options);
  if (problems.length > 0) throw new UserError(`Invalid MCP options: ${problems.join('; ')}`, { problems });
}

/** Where a worker's MCP messages go. */
export interface McpLog {
  /** Servers left out at start. */
  warn(message: string, meta?: Record<string, unknown>): void;
  /** What stdio servers write to stderr, line by line. */
  debug(message: string, meta?: Record<string, unknown>): void;
}

/** One MCP tool as the worker knows it. */
export interface McpToolEntry {
  /** The server's name. */
  server: string;
  /** The tool's name on its server. */
  tool: string;
  /** What the model sees: `<server>__<tool>`, the server's description and JSON Schema. */
  spec: ToolSpec;
  /** The arguments checked against the tool's JSON Schema; absent when the schema does not compile. */
  validate?: JsonSchemaValidator<unknown>;
}

/** What one call needs from the activity. */
export interface McpRunContext {
  /** Sent in the call's `_meta` under {@link IDEMPOTENCY_KEY_META}. */
  idempotencyKey: string;
  /** Cancels the request (the server is told). */
  signal?: AbortSignal;
  /** Called with each progress notification of the server. */
  heartbeat?: (details?: unknown) => void;
  /** Longest wait for the answer. */
  timeoutMs?: number;
  /** No retry follows this attempt: a server that stays unreachable is reported to the model. */
  lastAttempt: boolean;
}

const DEFAULT_CONNECT_TIMEOUT = '30 seconds';
const DEFAULT_CONNECT_ATTEMPTS = 3;

/** A worker's connected MCP servers and their tools. */
export class McpTools {
  readonly #connections = new Map<string, McpConnection>();
  readonly #tools = new Map<string, McpToolEntry>();
  /** The tools of each connected server, by server name, for the team snapshot. */
  readonly specs: McpToolSpecs;
  /** The servers left out (`onUnavailable: 'skip'`), with why. */
  readonly unavailable: readonly { name: string; reason: string }[];

  private constructor(
    connected: { connection: McpConnection; tools: McpToolInfo[] }[],
    unavailable: { name: string; reason: string }[],
  ) {
    const validators = new AjvJsonSchemaValidator();
    const specs: Record<string, ToolSpec[]> = {};
    for (const { connection, tools } of connected) {
      const server = connection.server.name;
      this.#connections.set(server, connection);
      specs[server] = tools.map((t) => {
        const parameters = parametersOf(t.inputSchema);
        const entry: McpToolEntry = {
          server,
          tool: t.name,
          spec: { name: mcpToolName(server, t.name), description: t.description ?? t.title ?? t.name, parameters },
        };
        try {
          entry.validate = validators.getValidator(parameters as Parameters<typeof validators.getValidator>[0]);
        } catch {
          // A schema the validator cannot compile: the server checks the arguments itself.
        }
        this.#tools.set(entry.spec.name, entry);
        return entry.spec;
      });
    }
    this.specs = specs;
    this.unavailable = unavailable;
  }

  /**
   * Connect to every server and list its tools, all at once. Unreachable servers fail the whole
   * start with {@link McpServerUnavailableError}, or are left out and logged (`onUnavailable: 'skip'`).
   */
  static async connect(servers: readonly McpServer[], options: McpWorkerOptions = {}, log?: McpLog): Promise<McpTools> {
    checkMcpWorkerOptions(options);
    const connectTimeoutMs = durationMs(options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT)!;
    const attempts = options.connectAttempts ?? DEFAULT_CONNECT_ATTEMPTS;
    const unique = [...new Map(servers.map((s) => [s.name, s])).values()];
    const settled = await Promise.allSettled(
      unique.map((server) => connectAtStart(server, connectTimeoutMs, attempts, log)),
    );
    const connected = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const unavailable = settled.flatMap((s, i) =>
      s.status === 'rejected' ? [{ name: unique[i]!.name, reason: reasonOf(s.reason) }] : [],
    );
    if (unavailable.length > 0 && (options.onUnavailable ?? 'fail') === 'fail') {
      await Promise.all(connected.map((c) => c.connection.close()));
      throw new McpServerUnavailableError(unavailable);
    }
    for (const s of unavailable)
      log?.warn(`MCP server "${s.name}" is unavailable; this worker starts without its tools: ${s.reason}`, {
        mcpServer: s.name,
        reason: s.reason,
      });
    return new McpTools(connected, unavailable);
  }

  /** The MCP tool `name` among the tools of `servers` (an agent's), if it has it. */
  find(servers: readonly McpServer[] | undefined, name: string): McpToolEntry | undefined {
    const entry = this.#tools.get(name);
    return entry && servers?.some((s) => s.name === entry.server) ? entry : undefined;
  }

  /** The names of the MCP tools of `servers`. */
  names(servers: readonly McpServer[] | undefined): string[] {
    return (servers ?? []).flatMap((s) => (this.specs[s.name] ?? []).map((t) => t.name));
  }

  /**
   * One call: arguments checked against the tool's JSON Schema, the idempotency key in `_meta`,
   * progress as heartbeats. The server's errors go back to the model; a server that cannot be
   * reached throws (retried by the run's policy) until the last attempt, which tells the model.
   */
  async run(entry: McpToolEntry, rawArguments: string, context: McpRunContext): Promise<RunToolResult> {
    const name = entry.spec.name;
    let args: unknown;
    try {
      args = JSON.parse(rawArguments || '{}');
    } catch {
      return { ok: false, content: `Error: the arguments of ${name} are not valid JSON: ${rawArguments}` };
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return { ok: false, content: `Error: invalid arguments for ${name}: they must be a JSON object` };
    const checked = entry.validate?.(args);
    if (checked && !checked.valid)
      return { ok: false, content: `Error: invalid arguments for ${name}: ${checked.errorMessage}` };
    try {
      const result = await this.#connections.get(entry.server)!.callTool(entry.tool, args as Record<string, unknown>, {
        meta: { [IDEMPOTENCY_KEY_META]: context.idempotencyKey },
        signal: context.signal,
        timeoutMs: context.timeoutMs,
        onprogress: (progress) => context.heartbeat?.({ progress }),
      });
      const text = resultText(result);
      return result.isError ? { ok: false, content: `Error: ${text}` } : { ok: true, content: text };
    } catch (err) {
      if (err instanceof McpConnectionError) {
        if (err.retryable && !context.lastAttempt) throw err;
        return { ok: false, content: `Error: ${err.message}` };
      }
      if (err instanceof McpError && !context.signal?.aborted) return { ok: false, content: `Error: ${err.message}` };
      throw err;
    }
  }

  /** Close every connection (stdio servers are stopped). */
  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((c) => c.close()));
  }
}

/** A tool's input schema as models want it: no `$schema`, and `properties` even when empty. */
/**
 * Connect one server and list its tools, trying again (with twice the time, after a pause) while it
 * may only be slow to start; the last try's time bounds its reconnects.
 */
async function connectAtStart(
  server: McpServer,
  firstTimeoutMs: number,
  attempts: number,
  log?: McpLog,
): Promise<{ connection: McpConnection; tools: McpToolInfo[] }> {
  for (let attempt = 1; ; attempt++) {
    const connectTimeoutMs = firstTimeoutMs * 2 ** (attempt - 1);
    const connection = new McpConnection(server, {
      connectTimeoutMs,
      onStderr: (line) => log?.debug(`MCP server "${server.name}": ${line}`, { mcpServer: server.name }),
    });
    try {
      return { connection, tools: await connection.listTools() };
    } catch (err) {
      await connection.close();
      if (attempt >= attempts || !mayConnectLater(err)) throw err;
      log?.warn(
        `MCP server "${server.name}" did not start (try ${attempt} of ${attempts}): ${reasonOf(err)}; trying again, waiting up to ${connectTimeoutMs * 2} ms`,
        { mcpServer: server.name, attempt },
      );
      await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
    }
  }
}

function parametersOf(schema: McpToolInfo['inputSchema']): JsonSchema {
  const { $schema: _ignored, ...rest } = schema as JsonSchema;
  return { ...rest, type: 'object', properties: rest.properties ?? {} };
}

/**
 * The text of a result for the model: text blocks as they are, other blocks described without
 * their binary data (which would bloat history), structured content when there is nothing else.
 */
export function resultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map((block) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'image':
      case 'audio':
        return JSON.stringify({
          type: block.type,
          mimeType: block.mimeType,
          bytes: Math.floor((block.data.length * 3) / 4),
        });
      case 'resource':
        return 'text' in block.resource
          ? block.resource.text
          : JSON.stringify({ type: 'resource', uri: block.resource.uri, mimeType: block.resource.mimeType });
      default:
        return JSON.stringify(block);
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}

function reasonOf(err: unknown): string {
  return err instanceof McpConnectionError ? err.reason : err instanceof Error ? err.message : String(err);
}
