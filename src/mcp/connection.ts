/**
 * One worker's connection to one MCP server, through the official SDK: connected when the worker
 * starts, reconnected when it is lost.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Progress,
  type Tool as McpToolInfo,
} from '@modelcontextprotocol/sdk/types.js';
import { McpConnectionError } from './errors';
import { describeServer, type McpServer } from './server';

/** How a connection behaves. */
export interface McpConnectionOptions {
  /** Longest wait for the server to start and answer `initialize`. */
  connectTimeoutMs: number;
  /** Each line the server writes to stderr (stdio servers). */
  onStderr?: (line: string) => void;
}

/** What one tool call needs besides its arguments. */
export interface McpCallOptions {
  /** Sent as the request's `_meta`. */
  meta: Record<string, unknown>;
  signal?: AbortSignal;
  /** Longest wait for the answer; restarted by each progress notification. */
  timeoutMs?: number;
  /** Called with each progress notification the server sends for the request. */
  onprogress?: (progress: Progress) => void;
}

const STDERR_TAIL = 800;

/** A connection to one server; {@link McpConnection.client} (re)connects on demand. */
export class McpConnection {
  #client: Client | undefined;
  #connecting: Promise<Client> | undefined;
  #closed = false;
  #stderr = '';

  constructor(
    readonly server: McpServer,
    private readonly options: McpConnectionOptions,
  ) {}

  /** The connected client, connecting first when there is none; throws {@link McpConnectionError}. */
  async client(): Promise<Client> {
    if (this.#client) return this.#client;
    this.#connecting ??= this.#connect().finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  /** Every tool the server lists, page by page. */
  async listTools(): Promise<McpToolInfo[]> {
    const client = await this.client();
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, {
          timeout: this.options.connectTimeoutMs,
        });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
    } catch (err) {
      throw new McpConnectionError(this.server.name, `listing its tools failed: ${this.#why(err)}`, true, err);
    }
    return tools;
  }

  /**
   * Call a tool. A lost connection is reconnected and the call sent once more (with the same
   * `_meta`, so a server can tell the repeat); when that fails too, {@link McpConnectionError}.
   * Errors the server answers with (`isError` results, JSON-RPC errors) are returned or thrown as they are.
   */
  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.client();
      try {
        const result = await client.callTool({ name, arguments: args, _meta: options.meta }, undefined, {
          signal: options.signal,
          ...(options.timeoutMs ? { timeout: options.timeoutMs, resetTimeoutOnProgress: true } : {}),
          ...(options.onprogress ? { onprogress: options.onprogress } : {}),
        });
        return result as CallToolResult;
      } catch (err) {
        if (options.signal?.aborted) throw err;
        const failure = connectionFailure(err);
        if (!failure) throw err;
        this.#drop(client);
        if (failure === 'refused') throw new McpConnectionError(this.server.name, this.#why(err), false);
        if (attempt >= 2)
          throw new McpConnectionError(
            this.server.name,
            `the connection was lost and a reconnect did not help: ${this.#why(err)}`,
          );
      }
    }
  }

  /** Close for good: the worker is shutting down. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined));
    this.#client = undefined;
    await client?.close().catch(() => undefined);
  }

  async #connect(): Promise<Client> {
    if (this.#closed) throw new McpConnectionError(this.server.name, 'the worker is shutting down', false);
    this.#stderr = '';
    const client = new Client({ name: 'baton', version: BATON_VERSION }, { capabilities: {} });
    client.onclose = () => this.#drop(client);
    // Failures reach the calls that they break; the client's own error events add nothing.
    client.onerror = () => undefined;
    try {
      await client.connect(this.#transport(), { timeout: this.options.connectTimeoutMs });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw new McpConnectionError(this.server.name, this.#why(err), connectionFailure(err) !== 'refused', err);
    }
    if (this.#closed) {
      await client.close().catch(() => undefined);
      throw new McpConnectionError(this.server.name, 'the worker is shutting down', false);
    }
    this.#client = client;
    return client;
  }

  #drop(client: Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    void client.close().catch(() => undefined);
  }

  #transport(): Transport {
    const s = this.server;
    if (s.transport === 'http')
      return new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { ...s.headers } } });
    const inherited = Object.fromEntries(
      (s.inheritEnv ?? []).flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]!]])),
    );
    const transport = new StdioClientTransport({
      command: s.command,
      args: [...(s.args ?? [])],
      env: { ...getDefaultEnvironment(), ...inherited, ...s.env },
      stderr: 'pipe',
      ...(s.cwd ? { cwd: s.cwd } : {}),
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL);
      for (const line of text.split('\n')) if (line.trim() !== '') this.options.onStderr?.(line);
    });
    return transport;
  }

  /** Why a connection failed, in words: the error, its cause, and a stdio server's last output. */
  #why(err: unknown): string {
    const e = err as { message?: string; cause?: { code?: string; message?: string } };
    let why = e?.message ?? String(err);
    if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) why = 'the server closed the connection';
    const cause = e?.cause?.code ?? e?.cause?.message;
    if (cause && !why.includes(cause)) why += ` (${cause})`;
    const tail = this.#stderr.trim();
    if (tail) why += `; its last output: ${tail.split('\n').slice(-3).join(' | ')}`;
    return `${why} [${describeServer(this.server)}]`;
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/**
 * Whether `err` means the connection failed (`lost`: reconnecting may help; `refused`: the server
 * turns baton away) rather than the server answering with an error.
 */
function connectionFailure(err: unknown): 'lost' | 'refused' | undefined {
  if (err instanceof McpError)
    return err.code === ErrorCode.ConnectionClosed || err.code === ErrorCode.RequestTimeout ? 'lost' : undefined;
  if (err instanceof StreamableHTTPError) {
    const status = err.code ?? 0;
    if (status === 401 || status === 403) return 'refused';
    return status === 404 || status === 408 || status === 429 || status >= 500 || status <= 0 ? 'lost' : undefined;
  }
  if ((err as Error)?.name === 'UnauthorizedError') return 'refused';
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  if (NETWORK_CODES.has(e?.code ?? '') || NETWORK_CODES.has(e?.cause?.code ?? '')) return 'lost';
  return e?.message === 'fetch failed' || e?.message === 'Not connected' ? 'lost' : undefined;
}

/**
 * Whether a server that could not be connected may be up on another try: it did not answer in
 * time, or its connection failed or closed (a process or port still starting), as opposed to a
 * command that does not exist or a server that refuses baton.
 */
export function mayConnectLater(err: unknown): boolean {
  return err instanceof McpConnectionError && err.retryable && connectionFailure(err.cause) === 'lost';
}

/** The version baton introduces itself with. */
const BATON_VERSION = ((): string => {
  // The package root: two folders up from src/mcp, three from dist/src/mcp.
  const file = [path.resolve(__dirname, '../../package.json'), path.resolve(__dirname, '../../../package.json')].find(
    (f) => fs.existsSync(f),
  );
  try {
    return (JSON.parse(fs.readFileSync(file!, 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();
