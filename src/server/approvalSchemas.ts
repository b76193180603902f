/**
 * The HTTP contract of approvals: a waiting handoff or tool call as the service lists it (with the
 * chain's request and the questions asked about it), a decision on one, the record a decision
 * leaves, and a question and its answer (request-info).
 */
import { z } from '@hono/zod-openapi';
import { HandoffRecordSchema } from './schemas';

const json = z.record(z.string(), z.unknown());
const ToolCallSchema = z
  .object({
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()).openapi({
      description:
        "The model's arguments as an object, as a decision's `arguments` take them (`{}` when the model wrote no JSON object: see `argumentsText`)",
    }),
    argumentsText: z.string().openapi({ description: 'The arguments as the model wrote them (JSON text)' }),
    toolCallId: z.string(),
    callHash: z.string().openapi({
      description:
        'Identifies this exact call; send it back with the decision so a decision meant for another call is refused',
    }),
  })
  .openapi('ToolCallUnderApproval');

export const ChainRequestSchema = z
  .object({
    agent: z.string(),
    input: z.string().openapi({
      description:
        "The chain's input, at most 400 characters; a tool call's sensitive argument values are redacted from it for callers who may not decide the call",
    }),
    truncated: z.boolean().optional(),
    startedAt: z.string().optional(),
    startedBy: z.string().optional().openapi({
      description: 'Who asked for the chain (the HTTP caller who started it, or what the starting client said)',
    }),
    client: z.string().optional().openapi({ description: 'The identity of the Temporal client that started it' }),
    parent: z
      .object({ workflowId: z.string(), rootWorkflowId: z.string(), depth: z.number() })
      .optional()
      .openapi({ description: 'When the chain is a specialist: the chain that delegated to it' }),
    original: z
      .object({ agent: z.string(), input: z.string(), truncated: z.boolean().optional() })
      .passthrough()
      .optional()
      .openapi({ description: "When the chain is a specialist: the top chain's request, what was first asked" }),
  })
  .openapi('ChainRequest');

export const RejectionReasonSchema = z.object({ code: z.string(), label: z.string() }).openapi('RejectionReason');

export const ApprovalQuestionSchema = z
  .object({
    question: z.string(),
    askedBy: z.string(),
    askedAt: z.string(),
    answer: z.string().optional(),
    answeredBy: z.string().optional(),
    answeredAt: z.string().optional(),
  })
  .openapi('ApprovalQuestion');

export const AskSchema = z
  .object({
    question: z
      .string()
      .min(1)
      .max(2000)
      .openapi({ description: 'The question for the requester; the approval keeps waiting, now for the answer too' }),
  })
  .strict()
  .openapi('Ask');

export const AnswerSchema = z
  .object({
    answer: z.string().min(1).max(2000).openapi({
      description: 'The answer to the open question; the approval keeps waiting for a decision, the answer attached',
    }),
  })
  .strict()
  .openapi('Answer');

export const PendingApprovalSchema = z
  .object({
    workflowId: z.string(),
    runId: z.string(),
    approvalId: z
      .string()
      .openapi({ description: 'What a decision names it by (`POST /v1/runs/{id}/approvals/{approvalId}`)' }),
    handoffId: z.string().openapi({ description: 'The same as `approvalId`, its former name' }),
    from: z.string(),
    to: z.string(),
    message: z.string(),
    requestedAt: z.string(),
    expiresAt: z.string().optional(),
    approvers: z.array(z.string()).optional(),
    onTimeout: z.string(),
    tool: ToolCallSchema.optional().openapi({
      description: 'Set when a tool call waits rather than a handoff (`to` is then `tool:<name>`)',
    }),
    ageMs: z.number(),
    team: z.string().optional().openapi({ description: 'The team version the chain runs on, e.g. support@2026-11-24' }),
    canDecide: z.boolean().openapi({ description: "Whether the caller's identity may decide it" }),
    requireSignature: z.boolean().optional().openapi({
      description:
        'Set when a decision must carry a valid signature by a key the chain trusts (the service signs with its own key when it has one)',
    }),
    sensitive: z
      .object({ arguments: z.union([z.literal(true), z.array(z.string())]), revealed: z.boolean() })
      .optional()
      .openapi({
        description:
          'Set when the tool declares sensitive arguments: which (`true`: all), and whether `tool.arguments` shows them; they show as "[redacted]" to callers who may not decide the call',
      }),
    chain: z
      .array(HandoffRecordSchema)
      .optional()
      .openapi({ description: 'The handoffs of the chain so far, when its workers answered in time' }),
    request: ChainRequestSchema.optional().openapi({
      description: 'What the chain was asked and by whom, when its start could be read',
    }),
    rejectionReasons: z.array(RejectionReasonSchema).optional().openapi({
      description: "The team's typed rejection reasons: a rejection's `reason` must be one of their codes",
    }),
    questions: z.array(ApprovalQuestionSchema).optional().openapi({
      description:
        'Questions approvers asked about it (request-info), with their answers; the last may wait for its answer',
    }),
  })
  .passthrough()
  .openapi('PendingApproval');

export const DecisionSchema = z
  .object({
    decision: z.enum(['approve', 'reject']),
    comment: z.string().max(4000).optional().openapi({
      description:
        'Recorded with the decision; the reason given to the agent on a rejection (a rejection carries one note: a `comment` or a `reason`, not both)',
    }),
    reason: z.string().min(1).max(4000).optional().openapi({
      description:
        "A rejection's reason: when the team defines `rejectionReasons`, one of their codes (an unknown one is refused, naming the valid codes, 409); the agent gets its code and label as JSON",
    }),
    arguments: json.optional().openapi({
      description:
        "A tool call's approval only: run it with these arguments instead of the model's (checked against the tool's parameters)",
      example: { orderId: 'A1', amount: 200 },
    }),
    callHash: z.string().min(1).max(200).optional().openapi({
      description:
        'A tool call only: the `tool.callHash` the approver saw; a decision for a call that changed since is refused (409)',
    }),
    signature: z.string().min(1).max(4096).optional().openapi({
      description:
        "The approver's own signature of the decision (a JWS, docs/signatures.md), sent as it is; without one, a service with a key signs for the token's identity",
    }),
    onBehalfOf: z.string().min(1).max(200).optional().openapi({
      description:
        "A quorum or staged approval: decide for this approver's slot (recorded as the caller for them); with `delegation`",
    }),
    delegation: z.string().min(1).max(4096).optional().openapi({
      description:
        "With `onBehalfOf`: the grant giving the caller that slot (a JWS signed by the slot's owner or an operator, docs/approvals.md); a forged, expired or foreign grant is refused (409)",
    }),
  })
  .strict()
  .openapi('Decision');

export const ApprovalRecordSchema = z
  .object({
    handoffId: z.string(),
    outcome: z.string(),
    approver: z.string().optional(),
    comment: z.string().optional(),
    reason: z.string().optional(),
    reasonLabel: z.string().optional().openapi({ description: 'The label of a typed rejection reason' }),
    questions: z
      .array(ApprovalQuestionSchema)
      .optional()
      .openapi({ description: 'The questions asked before the decision, with their answers' }),
    requestedAt: z.string(),
    decidedAt: z.string(),
    via: z.string(),
    tool: z.string().optional().openapi({ description: 'The tool, when a tool call was decided' }),
    editedArguments: z
      .string()
      .optional()
      .openapi({ description: 'The arguments the approver ran the call with instead of the model’s (JSON text)' }),
    identity: z
      .object({
        method: z.enum(['signed', 'token', 'claimed']),
        kid: z.string().optional(),
        keySource: z.enum(['team', 'run']).optional(),
        issuer: z.string().optional(),
        subject: z.string().optional(),
      })
      .optional()
      .openapi({
        description:
          'How the approver was established: a signature by a trusted key (signed), a token the service checked and signed for (token), or a claimed name',
      }),
    signature: z.string().optional().openapi({ description: "The decision's signature (a JWS), when it carried one" }),
  })
  .passthrough()
  .openapi('ApprovalRecord');
