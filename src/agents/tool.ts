import { z } from 'zod';
import { UserError } from '../common/errors';
import { DELEGATE_TOOL_NAME } from '../common/delegation';
import { HANDOFF_TOOL_NAME, READ_STATE_TOOL_NAME, TRANSFER_TOOL_PREFIX } from '../common/handoff';

const RESERVED = [HANDOFF_TOOL_NAME, DELEGATE_TOOL_NAME, READ_STATE_TOOL_NAME];
import type { JsonSchema, ToolSpec } from '../common/model';
import type { ToolApprovalSpec } from '../common/controls';
import { scrub, sensitiveValues, type ToolSensitivitySpec } from '../common/sensitive';
import { sensitivityProblems, toSensitivitySpec } from '../common/sensitivityChecks';
import type { RunContext } from '../common/team';
import { conditionArgProblems, toolApprovalSpec, type ToolApprovalOptions } from '../common/toolApproval';

export type { ToolApprovalOptions } from '../common/toolApproval';

/**
 * What a tool's `execute` receives besides its arguments. `Context` is the type of the run's
 * application context (`baton.start(agent, input, {context})`).
 */
export interface ToolContext<Context extends RunContext = RunContext> {
  /**
   * The run's application context: plain JSON given when the chain started (`{}` when none),
   * recorded in history. For clients, connections and keys, build the tool where the worker
   * starts (`makeTools(db)`) instead: they never belong in history.
   */
  context: Context;
  agentId: string;
  workflowId: string;
  runId: string;
  toolCallId: string;
  /**
   * The same for every attempt of this tool call, including retries after a worker crash.
   * Pass it to the systems you call (a payment API's idempotency key, a unique row id) so a retried
   * call does not repeat its side effect.
   */
  idempotencyKey: string;
  /**
   * 1 on the first attempt. A call started again after its worker was lost counts from 1 again
   * (see the `lostWorkerRetries` run option); its idempotency key stays the same.
   */
  attempt: number;
  /** Aborted when the run is cancelled or the call times out. */
  signal: AbortSignal;
  /**
   * Report progress of a long call. The activity already heartbeats on a timer, so a call on a
   * crashed worker is retried within the run's `heartbeatTimeout`; `details` reach the next attempt.
   */
  heartbeat: (details?: unknown) => void;
  /**
   * The details of the last heartbeat before this attempt: those of the previous attempt, or of the
   * attempt a lost worker ended when the call was started again; `undefined` when there were none.
   */
  previousHeartbeat?: unknown;
}

/**
 * Throw from a tool's `execute` for an expected failure the model should see and handle
 * ("order not found"). Any other error is retried per the run's retry policy and, when it still
 * fails, fails the run with `ToolExecutionError`.
 */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A tool's definition. */
export interface ToolDefinition<S extends z.ZodObject = z.ZodObject, Context extends RunContext = RunContext> {
  /** Name the model calls; letters, digits, `_` and `-`, at most 64. */
  name: string;
  description: string;
  /** zod v4 object schema of the arguments; the model gets its JSON Schema. */
  parameters: S;
  /** Runs in the worker as the `runTool` activity. The result is sent to the model (strings as they are, anything else as JSON). */
  execute(args: z.output<S>, context: ToolContext<Context>): unknown;
  /**
   * A person approves each call before it runs: `true`, or only calls whose arguments meet every
   * condition of `when`, with the approval policy's `approvers`, `timeout` and `onTimeout`. The
   * workflow decides, never the model; approvers may approve, reject with a reason the model sees,
   * or approve with edited arguments.
   * @example needsApproval: { when: [{ arg: 'amount', op: '>', value: 100 }], approvers: ['finance'], timeout: '1 hour' }
   */
  needsApproval?: boolean | ToolApprovalOptions;
  /**
   * Arguments and results baton must not show: `true` for every argument and the whole result, or
   * which. baton shows `"[redacted]"` for them in the audit (JSON, timeline, Mermaid, HTTP), run
   * events, the CLI, the HTTP service and the approvals page (where an approver who may decide the
   * call sees the real arguments), and takes their values out of errors `execute` throws (worker
   * logs); metrics and spans never carry values. Paths are checked against `parameters` here.
   *
   * The model still gets the real values, and the workflow history holds them (a run replays from
   * it): encrypt history at rest with the AES-GCM payload codec (`createWorker({codec: {encryptionKeys}})`).
   * Values the model repeats in its own words (its answer, a handoff message) are not redacted.
   * @example sensitive: { arguments: ['cardNumber', 'customer.email'], result: ['token'] }
   */
  sensitive?: true | ToolSensitivity<z.output<S>>;
}

/** Which arguments and which parts of the result of a tool are sensitive. */
export interface ToolSensitivity<Args = Record<string, unknown>> {
  /**
   * `true` for every argument, or dotted paths into the arguments (`customer.email`); a path
   * through a list applies to each item (`cards.number`).
   */
  arguments?: true | ArgumentPath<Args>[];
  /**
   * `true` for the whole result, or dotted paths into the result when it is JSON (`token`,
   * `card.last4`); a result that is not JSON is redacted whole.
   */
  result?: true | string[];
}

/** Dotted paths into the fields of `T`, through lists to their items, at most five deep. */
export type ArgumentPath<T, Depth extends unknown[] = []> = Depth['length'] extends 5
  ? never
  : T extends readonly (infer Item)[]
    ? ArgumentPath<Item, Depth>
    : T extends object
      ? { [K in keyof T & string]: K | `${K}.${ArgumentPath<NonNullable<T[K]>, [...Depth, 1]>}` }[keyof T & string]
      : never;

/** A validated tool, ready for a team. */
export interface Tool<
  S extends z.ZodObject = z.ZodObject,
  Context extends RunContext = RunContext,
> extends ToolDefinition<S, Context> {
  readonly kind: 'tool';
  /** What the model sees. */
  readonly spec: ToolSpec;
  /** When its calls need approval (from `needsApproval`). */
  readonly approval?: ToolApprovalSpec;
  /** What is sensitive about its calls (from `sensitive`), as the team snapshot records it. */
  readonly sensitivity?: ToolSensitivitySpec;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Define a tool.
 * @example
 * const lookupOrder = defineTool({
 *   name: 'lookupOrder',
 *   description: 'Find an order by id',
 *   parameters: z.object({ orderId: z.string() }),
 *   execute: async ({ orderId }) => orders.get(orderId),
 * });
 */
export function defineTool<S extends z.ZodObject, Context extends RunContext = RunContext>(
  definition: ToolDefinition<S, Context>,
): Tool<S, Context> {
  const { name, description, parameters, execute, needsApproval, sensitive } = definition;
  const problems: string[] = [];
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    problems.push(`name ${JSON.stringify(name)} must be 1-64 letters, digits, "_" or "-"`);
  } else if (
    RESERVED.includes(name) ||
    name.startsWith(`${HANDOFF_TOOL_NAME}_to_`) ||
    name.startsWith(TRANSFER_TOOL_PREFIX) ||
    name.startsWith(`${DELEGATE_TOOL_NAME}_to_`)
  ) {
    problems.push(
      `name "${name}" is reserved for baton's built-in tools (handoff, delegate, readState, handoff_to_*, delegate_to_*, transfer_to_*)`,
    );
  }
  if (typeof description !== 'string' || description.trim() === '')
    problems.push('description must be a non-empty string');
  if (typeof execute !== 'function') problems.push('execute must be a function');
  let schema: JsonSchema | undefined;
  if (!(parameters instanceof z.ZodObject)) {
    problems.push('parameters must be a zod v4 object schema, e.g. z.object({ orderId: z.string() })');
  } else {
    schema = toParametersSchema(parameters);
  }
  const approval = toolApprovalSpec(needsApproval, problems);
  if (approval?.when && schema)
    problems.push(...conditionArgProblems(approval.when, { parameters: schema, tool: String(name) }));
  if (sensitive !== undefined)
    problems.push(...sensitivityProblems(sensitive, 'sensitive', schema, typeof name === 'string' ? name : undefined));
  if (problems.length > 0 || !schema)
    throw new UserError(`Invalid tool ${JSON.stringify(name)}: ${problems.join('; ')}`);
  const sensitivity = sensitive === undefined ? undefined : toSensitivitySpec(sensitive as true | ToolSensitivitySpec);
  return {
    kind: 'tool',
    name,
    description,
    parameters,
    execute: sensitivity?.arguments ? scrubbingErrors(execute, sensitivity) : execute,
    spec: { name, description, parameters: schema },
    ...(approval ? { approval } : {}),
    ...(sensitivity ? { sensitive, sensitivity } : {}),
  };
}

/**
 * `execute`, with the sensitive argument values taken out of the message and stack of an error it
 * throws (the worker logs a failed attempt with its error, and history records the last one). The
 * error is the same object, thrown on. A `ToolError` is left whole: its message is the model's
 * answer, and the audit redacts it.
 */
function scrubbingErrors<Args, Context extends RunContext>(
  execute: (args: Args, context: ToolContext<Context>) => unknown,
  sensitivity: ToolSensitivitySpec,
) {
  return async (args: Args, context: ToolContext<Context>): Promise<unknown> => {
    try {
      return await execute(args, context);
    } catch (err) {
      if (err instanceof Error && !(err instanceof ToolError)) {
        const values = sensitiveValues(JSON.stringify(args ?? {}), sensitivity);
        try {
          err.message = scrub(err.message, values);
          if (err.stack) err.stack = scrub(err.stack, values);
        } catch {
          // An error whose message cannot be written is thrown as it is.
        }
      }
      throw err;
    }
  };
}

/** JSON Schema of a zod object, in the form function-calling models expect. */
export function toParametersSchema(schema: z.ZodObject): JsonSchema {
  return toJsonSchema(schema);
}

/** JSON Schema of a zod schema, without the `$schema` key models do not want. */
export function toJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema) as JsonSchema;
  return json;
}
