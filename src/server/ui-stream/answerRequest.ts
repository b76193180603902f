/**
 * A chat request carried out: its user message sent to the conversation (the first one starts it)
 * or starting the chain, or the approvals its assistant message answers decided as the caller;
 * each answered with the stream of the answer that follows.
 */
import type { Context } from 'hono';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { signDecision } from '../../client/signing/sign';
import { InputTooLargeError, InvalidRunInputError, UserError } from '../../common/errors';
import { inArrivalOrder, takePlace } from '../arrival';
import { mayDecide, type Identity } from '../auth';
import type { ServiceContext } from '../context';
import { kindOf, notA } from '../kinds';
import { fieldError, HttpProblem } from '../problems';
import { mustBeCallersTenant, tenantStart, tenantWorkflowId } from '../tenancy';
import { readAnswers } from './messages';
import { askOf, ChatRequestSchema, type ApprovalResponse, type ChatRequest } from './request';
import { deadline, decider, follow, mustBe, WORKFLOW, type Kind } from './workflowCalls';
import { ChunkWriter } from './writer';

/** Send the message or decide the approvals the request carries; the stream of the answer that follows. */
export async function answerRequest(c: Context, ctx: ServiceContext, kind: Kind, raw: ChatRequest) {
  const parsed = ChatRequestSchema.safeParse(raw);
  if (!parsed.success)
    throw new HttpProblem(
      400,
      'Invalid chat request',
      "The chat request does not match the AI SDK's; see the field errors.",
      parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    );
  const body = parsed.data;
  const ask = askOf(body);
  const id = body.id;
  const caller = c.get('identity') as Identity;
  // Another tenant's chat is not found; a new one is the caller's tenant's, under an id that says so.
  await deadline(ctx, () => mustBeCallersTenant(ctx, caller, id, kind));
  tenantWorkflowId(caller, id, true, 'id');
  if (body.agent !== undefined && ctx.agents && !ctx.agents.includes(body.agent)) {
    throw new HttpProblem(400, 'Invalid chat request', `no agent "${body.agent}"`, [
      { path: 'agent', message: `"agent" must be one of ${ctx.agents.join(', ')}` },
    ]);
  }
  if (ask.kind === 'approvals') {
    if (kind === 'chain' && ask.key !== id)
      throw new HttpProblem(
        400,
        'Invalid chat request',
        `the assistant message answers ${ask.key}, not the chain ${id}`,
      );
    await mustBe(ctx, kind, id, true);
    await decide(c, ctx, kind, id, ask.key, ask.responses);
    return follow(c, ctx, kind, id, ask.key, ChunkWriter.continuing(ask.message));
  }
  const existing = await deadline(ctx, () => kindOf(ctx, id));
  if (existing !== undefined && existing !== WORKFLOW[kind])
    throw notA(kind === 'conversation' ? 'conversation' : 'chain', id, existing);
  const agent =
    body.agent ??
    (existing !== undefined ? (ctx.agents?.[0] ?? 'agent') : ctx.agents?.length === 1 ? ctx.agents[0] : undefined);
  if (agent === undefined) {
    throw new HttpProblem(
      400,
      'Invalid chat request',
      `${id} does not exist yet, so its first message names the agent that answers it`,
      [
        {
          path: 'agent',
          message: `send "agent" with the first message (useChat: \`body: { agent }\`)${ctx.agents ? `, one of ${ctx.agents.join(', ')}` : ''}`,
        },
      ],
    );
  }
  if (kind === 'chain') return startChain(c, ctx, id, agent, ask.text, body, existing !== undefined);
  const checks = () =>
    deadline(ctx, () =>
      ctx.payloadLimit.check('The message', {
        start: { agent },
        message: { message: ask.text, idempotencyKey: ask.key },
      }),
    );
  let taken!: () => void;
  const accepted = new Promise<void>((resolve) => (taken = resolve));
  // The message's id is its idempotency key: the same message sent again (a retried request, a resume) is answered once.
  const reply = inArrivalOrder(takePlace(id), checks, () =>
    ctx.baton
      .conversation(agent, { id, ...(caller.tenant !== undefined ? { options: { tenant: caller.tenant } } : {}) })
      .send(ask.text, { idempotencyKey: ask.key, taken }),
  );
  reply.catch(() => undefined);
  // Followed once the conversation took it (its history then exists); refused before that, answered as a problem.
  const first = await firstOf(reply, accepted, ctx.temporalTimeoutMs + 5_000);
  if (first === 'late') {
    throw new HttpProblem(
      503,
      'Unavailable',
      `conversation ${id} did not take the message ${ask.key} in time (its worker may be busy or away); send it again (the same message id): it is answered once, however often it is sent`,
    );
  }
  if (first === 'settled') await reply.catch((err: unknown) => Promise.reject(refusal(err)));
  return follow(c, ctx, kind, id, ask.key, new ChunkWriter(), reply);
}

/** Start the chain `id` with the message (or follow it, when the same request comes again). */
async function startChain(
  c: Context,
  ctx: ServiceContext,
  id: string,
  agent: string,
  text: string,
  body: ChatRequest,
  exists: boolean,
) {
  const identity = c.get('identity') as Identity;
  const users = body.messages.filter((m) => m.role === 'user').length;
  if (exists || users > 1) {
    const reader = exists
      ? await deadline(ctx, () => readAnswers(ctx.baton.client, id, 'chain', decider(identity)))
      : undefined;
    if (users > 1 || reader?.answers[0]?.view.message !== text) {
      throw new HttpProblem(
        409,
        'Chain exists',
        `chain ${id} answers one message; send more to a conversation (/v1/ui/conversations) or start a chain with a new id`,
      );
    }
    return follow(c, ctx, 'chain', id, id, new ChunkWriter());
  }
  await deadline(ctx, () => ctx.payloadLimit.check('The run input (agent, input)', { agent, input: text }));
  try {
    ctx.limiter.take(identity.name);
  } catch (err) {
    ctx.metrics?.rateLimited.inc();
    throw err;
  }
  try {
    await deadline(ctx, () =>
      ctx.baton.start(agent, text, {
        ...tenantStart(identity, {}),
        workflowId: id,
        startedBy: identity.name,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
      }),
    );
    ctx.metrics?.runsStarted.inc({ agent });
  } catch (err) {
    // Another request started it meanwhile: the same chain, followed.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw refusal(err);
  }
  return follow(c, ctx, 'chain', id, id, new ChunkWriter());
}

/** Decide each answered approval as the caller: one already decided is left as it is. */
async function decide(
  c: Context,
  ctx: ServiceContext,
  kind: Kind,
  id: string,
  key: string,
  responses: ApprovalResponse[],
): Promise<void> {
  const identity = c.get('identity') as Identity;
  const waiting = await deadline(ctx, () => ctx.baton.getRun(id).pendingApprovals());
  for (const r of responses) {
    const p = waiting.find((w) => w.handoffId === r.approvalId);
    if (!p) {
      const reader = await deadline(ctx, () => readAnswers(ctx.baton.client, id, kind, decider(identity)));
      const known = reader
        .answer(key)
        ?.view.parts.some((x) => x.kind === 'data' && x.name === 'approval' && x.id === r.approvalId);
      if (known) continue;
      throw new HttpProblem(404, 'Not found', `no approval ${r.approvalId} waits in ${id} for the message ${key}`);
    }
    if (!mayDecide(identity, p.approvers))
      throw new HttpProblem(
        403,
        'Forbidden',
        `${identity.name} may not decide this ${p.tool ? 'tool call' : 'handoff'}${p.approvers ? ` (approvers: ${p.approvers.join(', ')})` : ' (deciding needs the approver or admin role)'}`,
      );
    const decision = r.approved ? 'approve' : 'reject';
    const fields = {
      approver: identity.name,
      ...(r.reason ? (r.approved ? { comment: r.reason } : { reason: r.reason }) : {}),
    };
    await deadline(ctx, () =>
      ctx.payloadLimit.check('The decision', { handoffId: r.approvalId, ...fields, signature: r.signature }),
    );
    // The caller's own signature goes as it is; else the service signs for the identity its token proved.
    const signed =
      r.signature ??
      (ctx.signer
        ? await signDecision(ctx.signer, {
            workflowId: p.workflowId ?? id,
            waiting: p,
            decision: { ...fields, decision },
            token: c.get('token'),
          })
        : undefined);
    const options = { approvalId: r.approvalId, ...fields, ...(signed !== undefined ? { signature: signed } : {}) };
    try {
      await deadline(ctx, () => (r.approved ? ctx.baton.approve(id, options) : ctx.baton.reject(id, options)));
    } catch (err) {
      throw refusal(err);
    }
    ctx.metrics?.decisions.inc({ decision });
  }
}

/** Whether the reply settled, the message was taken, or neither within `ms`. */
async function firstOf(
  reply: Promise<unknown>,
  accepted: Promise<void>,
  ms: number,
): Promise<'settled' | 'taken' | 'late'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    return await Promise.race([
      reply.then(
        () => 'settled' as const,
        () => 'settled' as const,
      ),
      accepted.then(() => 'taken' as const),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A refused message or decision as an HTTP answer; anything else as the service maps it. */
function refusal(err: unknown): unknown {
  if (err instanceof InvalidRunInputError)
    return new HttpProblem(400, 'Invalid message', 'The message is not valid.', err.problems.map(fieldError));
  if (err instanceof InputTooLargeError) return err;
  if (err instanceof UserError) return new HttpProblem(409, 'Refused', err.message);
  return err;
}
