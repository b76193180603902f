/**
 * `POST /v1/slack/interactions`: the clicks on the Approve and Reject buttons of baton's Slack
 * messages. The request must carry Slack's signature of its body and a timestamp within five
 * minutes; the Slack user must map to a baton identity; the decision then goes exactly as one sent
 * to `POST /v1/runs/{id}/approvals/{approvalId}` by that identity (same update, same checks).
 */
import { SlackActions, type SlackButtonValue } from '../../../activities/notify';
import type { ServiceApp, ServiceContext } from '../context';
import { decideAs } from '../decisions';
import { HttpProblem, toProblem } from '../problems';
import type { SlackInteractionOptions } from './options';
import { slackRequestProblem } from './slackSignature';

/** The largest interaction payload taken. */
const MAX_BODY_BYTES = 64 * 1024;

/** Register the Slack interaction endpoint (before the bearer-token check: Slack signs instead). */
export function slackRoutes(app: ServiceApp, ctx: ServiceContext, slack: SlackInteractionOptions): void {
  app.post('/v1/slack/interactions', async (c) => {
    const body = await c.req.text();
    if (Buffer.byteLength(body) > MAX_BODY_BYTES)
      throw new HttpProblem(413, 'Payload too large', `an interaction is at most ${MAX_BODY_BYTES} bytes`);
    const problem = slackRequestProblem(
      slack.signingSecret,
      c.req.header('x-slack-signature'),
      c.req.header('x-slack-request-timestamp'),
      body,
    );
    if (problem) throw new HttpProblem(401, 'Unauthorized', problem);
    const payload = parsePayload(body);
    const userId = payload.user?.id;
    const identity = typeof userId === 'string' ? slack.users[userId] : undefined;
    if (!identity)
      throw new HttpProblem(
        403,
        'Forbidden',
        `Slack user ${String(userId)} is not mapped to a baton identity (BATON_SLACK_USERS)`,
      );
    const value = buttonValue(payload.actions?.[0]);
    try {
      const record = await decideAs(
        ctx,
        { identity: { name: identity, roles: ['approver'] }, token: { iss: 'baton:slack', sub: userId! } },
        value.workflowId,
        {
          decision: value.decision,
          approvalId: value.approvalId,
          ...(value.callHash ? { callHash: value.callHash } : {}),
          comment: `${value.decision === 'approve' ? 'approved' : 'rejected'} in Slack by ${userId}`,
        },
      );
      await answer(payload.response_url, `${record.outcome === 'approved' ? 'Approved' : 'Rejected'} by ${identity}.`);
      return c.json({ text: `${record.outcome} by ${identity}`, record }, 200);
    } catch (err) {
      await answer(payload.response_url, `Not applied: ${toProblem(err).message}`, false);
      throw err;
    }
  });
}

interface InteractionPayload {
  type?: string;
  user?: { id?: string };
  actions?: { action_id?: string; value?: string }[];
  response_url?: string;
}

function parsePayload(body: string): InteractionPayload {
  const raw = new URLSearchParams(body).get('payload');
  if (raw === null)
    throw new HttpProblem(
      400,
      'Invalid interaction',
      'the body must be form-encoded with a "payload" field, as Slack sends it',
    );
  let payload: unknown;
  try {
    payload = JSON.parse(raw);
  } catch {
    throw new HttpProblem(400, 'Invalid interaction', '"payload" is not JSON');
  }
  if (typeof payload !== 'object' || payload === null || (payload as InteractionPayload).type !== 'block_actions') {
    throw new HttpProblem(400, 'Invalid interaction', 'only "block_actions" interactions (button clicks) are taken');
  }
  return payload as InteractionPayload;
}

function buttonValue(action: { action_id?: string; value?: string } | undefined): SlackButtonValue {
  const ids: string[] = Object.values(SlackActions);
  if (!action || !ids.includes(action.action_id ?? ''))
    throw new HttpProblem(400, 'Invalid interaction', `the action must be one of ${ids.join(', ')}`);
  let v: Partial<SlackButtonValue>;
  try {
    v = JSON.parse(action.value ?? '') as Partial<SlackButtonValue>;
  } catch {
    throw new HttpProblem(400, 'Invalid interaction', "the button's value is not baton's");
  }
  const decision = action.action_id === SlackActions.APPROVE ? 'approve' : 'reject';
  if (
    typeof v.workflowId !== 'string' ||
    typeof v.approvalId !== 'string' ||
    v.decision !== decision ||
    (v.callHash !== undefined && typeof v.callHash !== 'string')
  ) {
    throw new HttpProblem(
      400,
      'Invalid interaction',
      "the button's value does not name a chain, an approval and the button's own decision",
    );
  }
  return {
    workflowId: v.workflowId,
    approvalId: v.approvalId,
    decision,
    ...(v.callHash ? { callHash: v.callHash } : {}),
  };
}

/** Tell the Slack message what happened (its `response_url`), best effort: the decision stands either way. */
async function answer(responseUrl: string | undefined, text: string, replace = true): Promise<void> {
  if (!responseUrl || !/^https?:\/\//.test(responseUrl)) return;
  await fetch(responseUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ replace_original: replace, text }),
    signal: AbortSignal.timeout(5_000),
  })
    .then((r) => r.body?.cancel())
    .catch(() => undefined);
}
