/**
 * The HTTP contract: request and response schemas, from which requests are validated and
 * `/openapi.json` is generated (those of approvals are in `./approvalSchemas`). Run options are
 * checked in depth by baton's own validation (the same rules as the library and the workflow);
 * here they are an object.
 */
import { z } from '@hono/zod-openapi';

const json = z.record(z.string(), z.unknown());

export const ProblemSchema = z
  .object({
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi('Problem');

export const StartRunSchema = z
  .object({
    agent: z.string().min(1).openapi({ example: 'triage' }),
    input: z.string().min(1).openapi({ example: 'I would like a refund for order 1042.' }),
    options: json.optional().openapi({
      description: 'Run options: maxHandoffs, maxTurns, approvals, timeouts, retry, …',
      example: { maxHandoffs: 5 },
    }),
    context: json
      .optional()
      .openapi({ description: "Application data the run's tools receive (plain JSON, recorded in history)" }),
    workflowId: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .openapi({ description: 'The chain id; by default one is made (from the Idempotency-Key when given)' }),
    experiment: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .openapi({ description: 'Start the chain in this experiment: on its variant, recorded in BatonVariant' }),
  })
  .strict()
  .openapi('StartRun');

export const RunStartedSchema = z
  .object({
    workflowId: z.string(),
    runId: z.string(),
    /** False when an Idempotency-Key named a run that already existed. */
    created: z.boolean(),
  })
  .openapi('RunStarted');

/** A handoff of a chain, as a run and a waiting approval list them. */
export const HandoffRecordSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    message: z.string(),
    timestamp: z.string(),
    turn: z.number(),
    approval: json.optional(),
  })
  .passthrough()
  .openapi('HandoffRecord');

const CostSchema = z
  .object({
    currency: z.string().openapi({ description: 'ISO 4217 code of the prices, e.g. USD' }),
    micros: z
      .number()
      .openapi({ description: 'What the priced model calls cost, in millionths of the currency (1250 is 0.00125)' }),
    unpricedCalls: z.number().openapi({
      description: 'Model calls whose model had no price: above 0, the cost is unknown (at least `micros`)',
    }),
  })
  .openapi('Cost');

const UsageSchema = z
  .object({
    inputTokens: z.number(),
    outputTokens: z.number(),
    totalTokens: z.number(),
    modelCalls: z.number(),
    toolCalls: z.number(),
    cost: CostSchema.optional().openapi({
      description: "What the model calls cost at the chain's prices (chains with economics)",
    }),
  })
  .openapi('Usage');

/** A shared circuit breaker, as `GET /v1/breakers` lists it. */
export const SharedBreakerSchema = z
  .object({
    scope: z.string(),
    target: z.string(),
    state: z.enum(['closed', 'open', 'half_open']),
    failures: z.number(),
    openedAt: z.string().optional(),
    until: z.string().optional().openapi({ description: 'When an open breaker lets one trial through' }),
    trial: z.object({ chain: z.string(), until: z.string() }).optional(),
    lastFailure: z.object({ chain: z.string(), reason: z.string(), at: z.string() }).optional(),
    resets: z
      .array(z.object({ by: z.string(), reason: z.string().optional(), at: z.string() }))
      .openapi({ description: 'The latest resets, with who reset the breaker' }),
    settings: z.object({ threshold: z.number(), cooldownMs: z.number() }),
    workflowId: z.string(),
  })
  .openapi('SharedBreaker');

export const RunSchema = z
  .object({
    workflowId: z.string(),
    runId: z.string(),
    status: z
      .string()
      .openapi({ description: 'running, awaiting_approval, completed, failed, cancelled, terminated, timed_out' }),
    currentAgent: z.string().optional(),
    team: z.string().optional().openapi({ description: 'The team version the chain runs on, e.g. support@2026-11-24' }),
    startedAt: z.string().optional(),
    closedAt: z.string().optional(),
    input: json.optional(),
    startedBy: z
      .string()
      .optional()
      .openapi({ description: 'Who asked for the chain, when the client that started it said' }),
    chain: z.array(HandoffRecordSchema),
    usage: UsageSchema,
    pendingApprovals: z.array(json),
    output: z.unknown().optional(),
    finalAgent: z.string().optional(),
    error: z.object({ type: z.string().optional(), message: z.string() }).optional(),
  })
  .openapi('Run');

export const ReplaySchema = z
  .object({
    fromHandoff: z.number().int().min(1).optional(),
    overrides: z
      .object({ options: json.optional(), models: z.record(z.string(), json).optional() })
      .strict()
      .optional(),
    onCurrentTeam: z.boolean().optional().openapi({
      description:
        'Go on with the team the workers run now (a chain that failed with TeamMismatchError); the migration is recorded',
    }),
  })
  .strict()
  .openapi('Replay');

export const ReplayStartedSchema = z
  .object({
    workflowId: z.string(),
    runId: z.string(),
    baseRunId: z.string(),
    from: z.string(),
    mechanism: z.enum(['reset', 'resume']),
    migratedFrom: z.string().optional(),
  })
  .openapi('ReplayStarted');

export const IdentitySchema = z
  .object({
    name: z.string(),
    roles: z.array(z.string()),
    groups: z.array(z.string()).optional(),
    tenant: z
      .string()
      .optional()
      .openapi({ description: 'The tenant the caller acts for: it reads, decides and starts only its chains' }),
  })
  .openapi('Identity');

/** A path's `{id}`, described as `description` says. */
export const idParam = (description: string) =>
  z.object({
    id: z
      .string()
      .min(1)
      .max(1000)
      .openapi({ param: { name: 'id', in: 'path' }, description }),
  });

/**
 * An idempotency key as the service takes it, in a body or an `Idempotency-Key` header: 1–200 visible
 * ASCII characters, so it can be answered back in a header and sent again byte for byte.
 */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(200)
  .regex(
    /^[\x21-\x7e]+$/,
    'an idempotency key is 1–200 visible ASCII characters (letters, digits and punctuation, no spaces), such as a UUID',
  )
  .openapi({ example: '6c1f9a52-7d1e-4b8e-9a43-2f0e5d1c8b77' });

export const RunIdParam = idParam('The workflow id of the chain');
