/**
 * Decisions that come back from notifications: a signed one-time email link (`/v1/links/{token}`)
 * or a Slack button click (`POST /v1/slack/interactions`, Slack's signature and timestamp), taken
 * by the service in process. An approver the policy names decides, and the same link or click sent
 * again is refused (each channel's decision is applied once); a forged link or click, or an
 * approver the policy does not name, is refused and the approval still waits.
 */
import fc from 'fast-check';
import { issueLink, SlackActions } from '../../../activities/notify';
import { createBatonApp, type ServiceApp } from '../../../src/server';
import { slackSignature } from '../../../src/server/notify/slackSignature';
import { broken, clip, operation, type Harness } from '../harness';
import { stillWaiting, taken, waiting, waitingFor, type Waiting } from '../waiting';

const BASE = 'http://baton.model';
const LINK_SECRET = 'model-link-secret-0123456789-abcdefgh';
const SLACK_SECRET = 'model-slack-signing-secret';
const SLACK_USERS = { U_ALICE: 'alice', U_MALLORY: 'mallory' } as const;
const apps = new WeakMap<Harness, ServiceApp>();

function appOf(h: Harness): ServiceApp {
  let app = apps.get(h);
  if (!app) {
    app = createBatonApp({
      baton: h.baton,
      auth: { tokens: [{ token: 'model-notify-token', identity: 'alice', roles: ['approver'] }] },
      metrics: false,
      log: () => undefined,
      notifications: { linkSecret: LINK_SECRET, slack: { signingSecret: SLACK_SECRET, users: SLACK_USERS } },
    });
    apps.set(h, app);
  }
  return app;
}

type Who = 'alice' | 'mallory';
type Via = 'link' | 'slack';

/** The request a channel sends for approving `w` as `who`; `forge` makes it one the service must refuse. */
function requestFor(w: Waiting, via: Via, who: Who, forge: boolean): () => Request {
  const callHash = w.p.tool ? { callHash: w.p.tool.callHash } : {};
  if (via === 'link') {
    const token = issueLink(forge ? 'not-the-link-secret-0123456789-abcdef' : LINK_SECRET, {
      workflowId: w.root.id,
      approvalId: w.p.handoffId,
      decision: 'approve',
      identity: who,
      ...callHash,
      expiresAt: Date.now() + 3_600_000,
    });
    return () => new Request(`${BASE}/v1/links/${token}`, { method: 'POST' });
  }
  const user = who === 'alice' ? 'U_ALICE' : 'U_MALLORY';
  const value = JSON.stringify({ workflowId: w.root.id, approvalId: w.p.handoffId, decision: 'approve', ...callHash });
  const body = `payload=${encodeURIComponent(JSON.stringify({ type: 'block_actions', user: { id: user }, actions: [{ action_id: SlackActions.APPROVE, value }] }))}`;
  const ts = String(Math.floor(Date.now() / 1000));
  const signature = slackSignature(forge ? 'not-the-slack-secret' : SLACK_SECRET, ts, body);
  return () =>
    new Request(`${BASE}/v1/slack/interactions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': ts,
        'x-slack-signature': signature,
      },
      body,
    });
}

async function send(h: Harness, request: Request): Promise<{ status: number; text: string }> {
  const res = await appOf(h).fetch(request);
  return { status: res.status, text: await res.text() };
}

export const notificationOperations = [
  operation({
    name: 'notify_decide',
    group: 'protocols',
    weight: 3,
    params: fc.record({
      approval: fc.nat(),
      via: fc.constantFrom<Via>('link', 'slack'),
      who: fc.constantFrom<Who>('alice', 'alice', 'mallory'),
      forge: fc.constantFrom(false, false, false, true),
    }),
    // The service signs nothing here: approvals that need a signature are decided elsewhere.
    applies: (m) => waiting(m).some((w) => !w.p.requireSignature),
    async run(h, p) {
      const w = waitingFor(h.model, p.approval, (x) => !x.p.requireSignature)!;
      const may = !p.forge && (w.p.approvers === undefined || w.p.approvers.includes(p.who));
      const request = requestFor(w, p.via, p.who, p.forge);
      const first = await send(h, request());
      if (!may) {
        if (first.status === 200)
          broken(
            h,
            p.forge ? 'notify-forged-refused' : 'refusals-change-nothing',
            `${p.forge ? 'a forged' : `${p.who}'s`} ${p.via} decision of ${w.p.handoffId} in ${w.root.id} was taken`,
          );
        else await stillWaiting(h, w, `a ${p.forge ? 'forged ' : ''}${p.via} decision by ${p.who} (${first.status})`);
        return;
      }
      if (first.status !== 200) {
        // A decision that lost a race (the chain ended, a kill moved it) finds nothing waiting.
        if (first.status !== 404 && first.status !== 410 && !/already decided|has ended/.test(first.text))
          broken(
            h,
            'decision-answered',
            `approving ${w.p.handoffId} in ${w.root.id} by ${p.via} failed: ${first.status} ${clip(first.text, 200)}`,
          );
        return;
      }
      taken(w, { handoffId: w.p.handoffId, outcome: 'approved' }, false);
      const again = await send(h, request());
      if (again.status === 200)
        broken(h, 'notify-once', `the same ${p.via} decision of ${w.p.handoffId} in ${w.root.id} was applied twice`);
    },
  }),
];
