/**
 * MCP servers declared as data: `mcpServer(...)` on an agent, and the names their tools take in
 * the team snapshot (what the team checks of them: `./teamTools`). No I/O: the worker connects (see
 * `./tools`).
 */
import { createHash } from 'node:crypto';
import { UserError } from '../common/errors';
import type { ToolApprovalSpec } from '../common/controls';
import type { ToolSensitivitySpec } from '../common/sensitive';
import { sensitivityProblems, toSensitivitySpec } from '../common/sensitivityChecks';
import { toolApprovalSpec, type ToolApprovalOptions } from '../common/toolApproval';

/**
 * Which of a server's tools have sensitive arguments or results, by the tool's name on the server
 * (`lookupOrder`, not `orders__lookupOrder`): `true` for every argument and the whole result, or
 * `{arguments?, result?}` as in `defineTool({sensitive})`. Argument paths are checked against the
 * schemas the server lists when the worker connects.
 * @example sensitive: { lookupCustomer: { arguments: ['email'], result: ['phone'] } }
 */
export type McpSensitivity = Record<string, true | ToolSensitivitySpec>;

/**
 * Which of a server's tools need a person's approval before a call runs, by the tool's name on the
 * server: `true`, or `{when?, approvers?, timeout?, onTimeout?, dueIn?, remindEvery?, escalation?}` as in `defineTool({needsApproval})`.
 * Conditions are checked against the schemas the server lists when the worker connects.
 * @example needsApproval: { refundOrder: { when: [{ arg: 'amount', op: '>', value: 100 }], approvers: ['finance'] } }
 */
export type McpApprovals = Record<string, boolean | ToolApprovalOptions>;

/** An MCP server the worker starts as a child process and talks to over stdin/stdout. */
export interface McpStdioServerOptions {
  /** The server's name: the prefix of its tools (`<name>__<tool>`). A letter, then letters, digits, `-` or single `_`, at most 32. */
  name: string;
  /** The program to start, e.g. `npx` or `process.execPath`. */
  command: string;
  args?: string[];
  /**
   * Environment of the server. It gets only a safe minimum of the worker's environment (`PATH`,
   * `HOME`, `USER`, …) besides these and `inheritEnv`, so the worker's own keys do not leak into it.
   */
  env?: Record<string, string>;
  /**
   * Names of the worker's environment variables the server also gets, read when the worker
   * connects: for keys and settings kept in the worker's environment instead of in code.
   * @example inheritEnv: ['GITHUB_TOKEN']
   */
  inheritEnv?: string[];
  /** @default the worker's working directory */
  cwd?: string;
  /** Tools whose arguments or results baton must not show; see {@link McpSensitivity}. */
  sensitive?: McpSensitivity;
  /** Tools whose calls wait for a person's approval; see {@link McpApprovals}. */
  needsApproval?: McpApprovals;
}

/** An MCP server reached over streamable HTTP. */
export interface McpHttpServerOptions {
  /** The server's name: the prefix of its tools (`<name>__<tool>`). A letter, then letters, digits, `-` or single `_`, at most 32. */
  name: string;
  /** The server's MCP endpoint, e.g. `http://localhost:3000/mcp`. */
  url: string;
  /** Sent with every request, e.g. `{ Authorization: 'Bearer …' }`. Never recorded in history. */
  headers?: Record<string, string>;
  /** Tools whose arguments or results baton must not show; see {@link McpSensitivity}. */
  sensitive?: McpSensitivity;
  /** Tools whose calls wait for a person's approval; see {@link McpApprovals}. */
  needsApproval?: McpApprovals;
}

/** A declared MCP server: give it to agents as `mcpServers: [server]`. */
export type McpServer =
  | ({
      readonly kind: 'mcpServer';
      readonly transport: 'stdio';
      readonly approvals?: Readonly<Record<string, ToolApprovalSpec>>;
    } & Readonly<Omit<McpStdioServerOptions, 'needsApproval'>>)
  | ({
      readonly kind: 'mcpServer';
      readonly transport: 'http';
      readonly approvals?: Readonly<Record<string, ToolApprovalSpec>>;
    } & Readonly<Omit<McpHttpServerOptions, 'needsApproval'>>);

/** Server names: a letter first; no `__` and no trailing `_`, so `<server>__<tool>` names one server. */
const SERVER_NAME = /^[a-zA-Z](?:[a-zA-Z0-9-]|_(?!_))*$/;
const MAX_SERVER_NAME = 32;
const RESERVED_PREFIXES = ['handoff_to_', 'transfer_to_', 'delegate_to_'];

/**
 * The `_meta` key of every MCP tool call that carries its idempotency key: the same for each
 * attempt of one call, so a server can do a repeated call's side effect once.
 */
export const IDEMPOTENCY_KEY_META = 'baton/idempotencyKey';

/** The separator of server and tool in an MCP tool's name. */
export const MCP_TOOL_SEPARATOR = '__';

/**
 * Declare an MCP server whose tools agents can call. Over stdio (`command`) the worker starts the
 * server itself; over streamable HTTP (`url`) it connects to one that runs. The worker lists the
 * tools when it starts; each joins the agent's tools as `<name>__<tool>` with the JSON Schema the
 * server gives, and each call is a `runTool` activity. Throws a {@link UserError} naming every problem.
 * @example
 * const orders = mcpServer({ name: 'orders', command: 'node', args: ['orders-server.js'] });
 * const github = mcpServer({ name: 'github', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: `Bearer ${token}` } });
 * defineAgent({ id: 'refunds', …, mcpServers: [orders] });
 */
export function mcpServer(options: McpStdioServerOptions | McpHttpServerOptions): McpServer {
  const o = (options ?? {}) as Partial<McpStdioServerOptions & McpHttpServerOptions>;
  const problems = nameProblems(o.name);
  const stdio = o.command !== undefined;
  if (stdio === (o.url !== undefined))
    problems.push('give either command (a stdio server) or url (a streamable HTTP server)');
  if (stdio) {
    if (typeof o.command !== 'string' || o.command.trim() === '') problems.push('command must be a non-empty string');
    if (o.args !== undefined && !isStringArray(o.args)) problems.push('args must be a list of strings');
    if (o.env !== undefined && !isStringRecord(o.env)) problems.push('env must be an object of strings');
    if (o.inheritEnv !== undefined && !isStringArray(o.inheritEnv))
      problems.push('inheritEnv must be a list of variable names');
    if (o.cwd !== undefined && typeof o.cwd !== 'string') problems.push('cwd must be a string');
    if (o.headers !== undefined) problems.push('headers are for HTTP servers (url)');
  } else if (o.url !== undefined) {
    if (!isHttpUrl(o.url)) problems.push(`url must be an http or https URL, got ${JSON.stringify(o.url)}`);
    if (o.headers !== undefined && !isStringRecord(o.headers)) problems.push('headers must be an object of strings');
    for (const key of ['args', 'env', 'inheritEnv', 'cwd'] as const)
      if (o[key] !== undefined) problems.push(`${key} is for stdio servers (command)`);
  }
  if (o.sensitive !== undefined) problems.push(...mcpSensitivityProblems(o.sensitive));
  const approvals = o.needsApproval === undefined ? undefined : mcpApprovals(o.needsApproval, problems);
  if (problems.length > 0)
    throw new UserError(`Invalid MCP server ${JSON.stringify(o.name)}: ${problems.join('; ')}`, { problems });
  const extras = {
    ...(o.sensitive
      ? { sensitive: Object.fromEntries(Object.entries(o.sensitive).map(([tool, s]) => [tool, toSensitivitySpec(s)])) }
      : {}),
    ...(approvals && Object.keys(approvals).length > 0 ? { approvals } : {}),
  };
  if (stdio) {
    const { name, command, args = [], env = {}, inheritEnv = [], cwd } = o as McpStdioServerOptions;
    return {
      kind: 'mcpServer',
      transport: 'stdio',
      name,
      command,
      args: [...args],
      env: { ...env },
      inheritEnv: [...inheritEnv],
      ...(cwd ? { cwd } : {}),
      ...extras,
    };
  }
  const { name, url, headers = {} } = o as McpHttpServerOptions;
  return { kind: 'mcpServer', transport: 'http', name, url, headers: { ...headers }, ...extras };
}

/** `needsApproval` by tool name as the snapshot records it (tools with `false` left out); problems go to `problems`. */
function mcpApprovals(value: unknown, problems: string[]): Record<string, ToolApprovalSpec> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push(
      `needsApproval must be an object of the server's tool names, e.g. { refundOrder: true }, got ${JSON.stringify(value)}`,
    );
    return undefined;
  }
  const approvals: Record<string, ToolApprovalSpec> = {};
  for (const [tool, spec] of Object.entries(value)) {
    if (tool.trim() === '') {
      problems.push('needsApproval names a tool with an empty name');
      continue;
    }
    const approval = toolApprovalSpec(spec, problems, `needsApproval.${tool}`);
    if (approval) approvals[tool] = approval;
  }
  return approvals;
}

function mcpSensitivityProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [
      `sensitive must be an object of the server's tool names, e.g. { lookupCustomer: { arguments: ['email'] } }, got ${JSON.stringify(value)}`,
    ];
  }
  return Object.entries(value).flatMap(([tool, s]) =>
    tool.trim() === '' ? ['sensitive names a tool with an empty name'] : sensitivityProblems(s, `sensitive.${tool}`),
  );
}

function nameProblems(name: unknown): string[] {
  if (typeof name !== 'string' || !SERVER_NAME.test(name) || name.endsWith('_') || name.length > MAX_SERVER_NAME) {
    return [
      `name ${JSON.stringify(name)} must start with a letter and use only letters, digits, "-" or single "_" (not at the end), at most ${MAX_SERVER_NAME}`,
    ];
  }
  if (RESERVED_PREFIXES.some((p) => name.startsWith(p)))
    return [`name "${name}" starts like baton's built-in tools (${RESERVED_PREFIXES.join(', ')})`];
  return [];
}

/** Where a server's declaration appears in messages: its command line or URL, never its env or headers. */
export function describeServer(server: McpServer): string {
  return server.transport === 'stdio'
    ? `stdio: ${[server.command, ...(server.args ?? [])].join(' ')}`
    : `http: ${server.url}`;
}

/** Problems with an agent's `mcpServers`. */
export function mcpServersProblems(servers: unknown): string[] {
  if (servers === undefined) return [];
  if (!Array.isArray(servers) || servers.some((s) => (s as McpServer | undefined)?.kind !== 'mcpServer'))
    return ['mcpServers must be a list made with mcpServer()'];
  const names = (servers as McpServer[]).map((s) => s.name);
  return names.filter((n, i) => names.indexOf(n) !== i).map((n) => `mcpServers lists two servers named "${n}"`);
}

/**
 * The name an MCP tool takes: `<server>__<tool>`, with characters models do not accept in tool
 * names replaced by `_`, and names over 64 characters shortened with a hash of the whole.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `${server}${MCP_TOOL_SEPARATOR}${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  if (name.length <= MAX_TOOL_NAME) return name;
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${createHash('sha256').update(`${server}/${tool}`).digest('hex').slice(0, 8)}`;
}

const MAX_TOOL_NAME = 64;

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string')
  );
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
