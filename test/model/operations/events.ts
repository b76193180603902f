/**
 * Events from a bus: signed CloudEvents at the service's `POST /events` (in process, on the
 * sequence's client), each delivered one to three times, at once or one after another, and again
 * later, as a bus retries. By the team's event rules an event starts a chain at an agent, or is
 * sent as a message to a conversation (one the sequence has, or a new one it starts). Invariant
 * `event-once`: each event id starts one chain or is one message of its conversation, however
 * often it is delivered; every delivery is answered 2xx (or 503 to deliver again, or 409 for a
 * conversation that ended), all naming the same chain or message.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { defineAgent, scripted, Team } from '../../../src';
import { createBatonApp, Role, type ServiceApp } from '../../../src/server';
import { broken, clip, errorText, operation, sleep, type Harness, type Invariant } from '../harness';
import { openRoots, pick, ref, type ModelState, type RootModel, type SentMessage } from '../model';
import { AGENTS, START_AGENTS, type AgentId } from '../team';
import { BASE_OPTIONS, newRoot, roomForRoot } from './chain';
import { inFlight } from './conversation';

const SECRET = 'model-harness-events-secret';
const TOKEN = 'model-harness-events-reader';
const SOURCE = 'model/bus';

/** The event rules, declared on a team of the harness's agents (checked as a team's are). */
const RULES_TEAM = new Team(
  AGENTS.map((id) => defineAgent({ id, instructions: 'Only the ids matter here.', model: scripted([]) })),
  {
    events: [
      // The chains and conversations events start run with the harness's options, as its other starts do.
      ...START_AGENTS.map((agent) => ({ type: `model.start.${agent}`, start: agent, options: BASE_OPTIONS })),
      {
        type: 'model.message',
        message: { conversation: '$.subject', agent: 'support', midTurn: 'enqueue' },
        input: 'event {{$.id}}: {{$.data.text}}',
        options: BASE_OPTIONS,
      },
    ],
  },
);

/** An event of the sequence and what each delivery was answered. */
interface DeliveredEvent {
  id: string;
  body: string;
  kind: 'start' | 'message';
  /** The chain it started, or the conversation it went to. */
  target?: string;
  answers: { status: number; body: Record<string, unknown> }[];
  /** Judged by `event-once` once its chain or conversation closed. */
  judged?: boolean;
}

const apps = new WeakMap<Harness, ServiceApp>();
const events = new WeakMap<Harness, DeliveredEvent[]>();

function appOf(h: Harness): ServiceApp {
  let app = apps.get(h);
  if (!app) {
    const cloudEvents = { secret: SECRET, team: RULES_TEAM, idPrefix: `${h.model.tag}-e` };
    app = createBatonApp({
      baton: h.baton,
      auth: { tokens: [{ token: TOKEN, identity: 'bus-reader', roles: [Role.VIEWER] }] },
      metrics: false,
      log: () => undefined,
      cloudEvents,
    });
    apps.set(h, app);
  }
  return app;
}

function eventsOf(h: Harness): DeliveredEvent[] {
  let list = events.get(h);
  if (!list) events.set(h, (list = []));
  return list;
}

async function post(h: Harness, e: DeliveredEvent): Promise<void> {
  const signature = `sha256=${createHmac('sha256', SECRET).update(e.body).digest('hex')}`;
  const res = await appOf(h).request('/events', {
    method: 'POST',
    headers: { 'content-type': 'application/cloudevents+json', 'x-baton-signature': signature },
    body: e.body,
  });
  e.answers.push({ status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> });
}

/** Deliver `e` `times` times, all at once or one after another; then judge the answers. */
async function deliver(h: Harness, e: DeliveredEvent, times: number, together: boolean): Promise<void> {
  if (together) await Promise.all(Array.from({ length: times }, () => post(h, e)));
  else for (let i = 0; i < times; i++) await post(h, e);
  const named = new Set(
    e.answers
      .filter((a) => a.status < 300)
      .map((a) => String(e.kind === 'start' ? a.body.workflowId : a.body.idempotencyKey)),
  );
  if (named.size > 1)
    broken(
      h,
      'event-once',
      `event ${e.id} (${e.kind}) delivered ${e.answers.length} times named ${[...named].join(', ')}`,
    );
  for (const a of e.answers) {
    const fine =
      a.status === 200 ||
      a.status === 202 ||
      (e.kind === 'message' &&
        (a.status === 503 || (a.status === 409 && /has ended|is ending/.test(String(a.body.detail)))));
    if (!fine) broken(h, 'event-once', `event ${e.id} (${e.kind}) was answered ${a.status}: ${clip(a.body, 300)}`);
  }
  if (e.kind === 'start' && e.answers.filter((a) => a.status === 202).length > 1)
    broken(
      h,
      'event-once',
      `event ${e.id} started a chain ${e.answers.filter((a) => a.status === 202).length} times (created: true)`,
    );
}

/** Follow the event's message until its reply or the turn's error, as its sender would. */
async function followMessage(h: Harness, root: RootModel, msg: SentMessage): Promise<void> {
  for (const until = Date.now() + 10 * 60_000; Date.now() < until;) {
    const res = await appOf(h).request(
      `/v1/conversations/${encodeURIComponent(root.id)}/messages/${encodeURIComponent(msg.key)}?wait=5`,
      { headers: { authorization: `Bearer ${TOKEN}` } },
    );
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.status === 200) return void (msg.reply = body as unknown as SentMessage['reply']);
    if (res.status === 202) continue;
    const running = await h.system.client.workflow
      .getHandle(root.id)
      .describe()
      .then(
        (d) => d.status.name === 'RUNNING',
        () => false,
      );
    if (running && (res.status === 503 || res.status === 404)) {
      await sleep(1_000);
      continue;
    }
    const detail = String(body.detail ?? body.title ?? '');
    msg.error =
      /^([A-Z]\w+Error): /.exec(detail)?.[1] ??
      (/rolled back/.test(detail)
        ? 'MessageRolledBackError'
        : /has ended|is ending/.test(detail)
          ? 'ConversationEndedError'
          : `HTTP ${res.status}`);
    msg.errorMessage = `${res.status} ${clip(detail, 300)}`;
    return;
  }
}

/** Conversations an event may go to: open, not ending, not too busy. */
function taking(m: ModelState): RootModel[] {
  return openRoots(m, 'conversation').filter((r) => !r.ending && inFlight(r).length < 3);
}

export const eventOperations = [
  operation({
    name: 'event_deliver',
    group: 'protocols',
    opens: true,
    weight: 4,
    params: fc.record({
      kind: fc.constantFrom<'start' | 'message' | 'new_chat'>('start', 'message', 'new_chat'),
      agent: fc.nat(),
      chat: fc.nat(),
      times: fc.integer({ min: 1, max: 3 }),
      together: fc.boolean(),
    }),
    applies: (m, p) => (p.kind === 'message' ? taking(m).length > 0 : roomForRoot(m)),
    async run(h, p) {
      const m = h.model;
      const id = ref(m, `${m.tag}-evt`);
      if (p.kind === 'start') {
        const agent = pick(START_AGENTS, p.agent)!;
        const e: DeliveredEvent = {
          id,
          kind: 'start',
          body: JSON.stringify({
            specversion: '1.0',
            id,
            source: SOURCE,
            type: `model.start.${agent}`,
            data: `request ${id} for ${agent} from the bus`,
          }),
          answers: [],
        };
        eventsOf(h).push(e);
        await deliver(h, e, p.times, p.together);
        const started = e.answers.find((a) => a.status < 300)?.body.workflowId;
        if (typeof started !== 'string') return;
        e.target = started;
        const root = newRoot(m, 'chain', agent as AgentId, BASE_OPTIONS);
        Object.assign(root, { id: started, context: undefined });
        return;
      }
      const root =
        p.kind === 'message'
          ? pick(taking(m), p.chat)!
          : Object.assign(newRoot(m, 'conversation', 'support', BASE_OPTIONS), { context: undefined });
      const n = root.messages.length + 1;
      const e: DeliveredEvent = {
        id,
        kind: 'message',
        target: root.id,
        body: JSON.stringify({
          specversion: '1.0',
          id,
          source: SOURCE,
          type: 'model.message',
          subject: root.id,
          data: { text: `message ${n} from the bus` },
        }),
        answers: [],
      };
      eventsOf(h).push(e);
      await deliver(h, e, p.times, p.together);
      const key = e.answers.map((a) => a.body.idempotencyKey).find((k) => typeof k === 'string');
      if (typeof key !== 'string') return;
      const msg: SentMessage = {
        n,
        key,
        text: `event ${id}: message ${n} from the bus`,
        midTurn: 'enqueue',
        streamed: false,
        done: Promise.resolve(),
      };
      root.messages.push(msg);
      msg.done = followMessage(h, root, msg).catch((err: unknown) => {
        msg.error = 'HTTP request failed';
        msg.errorMessage = errorText(err);
      });
    },
  }),
  operation({
    name: 'event_redeliver',
    group: 'protocols',
    weight: 2,
    params: fc.record({ event: fc.nat(), times: fc.integer({ min: 1, max: 2 }), together: fc.boolean() }),
    applies: () => true,
    async run(h, p) {
      const e = pick(eventsOf(h), p.event);
      if (e) await deliver(h, e, p.times, p.together);
    },
  }),
];

/** `event-once`: each event id is one chain, or one turn of its conversation, whatever was delivered. */
export const eventInvariants: Invariant[] = [
  {
    name: 'event-once',
    when: 'step',
    async check(h) {
      for (const e of eventsOf(h)) {
        const root = h.model.roots.find((r) => r.id === e.target);
        if (!e.target || e.judged || !root || root.status === 'open') continue;
        e.judged = true;
        if (e.kind === 'start') {
          const runs = await h.system.client.workflow
            .getHandle(e.target)
            .describe()
            .then(
              () => 1,
              () => 0,
            );
          if (runs !== 1) broken(h, 'event-once', `event ${e.id} answered chain ${e.target}, which does not exist`);
          continue;
        }
        const audit = await h.baton
          .conversation(root.agent, { id: root.id })
          .audit()
          .catch(() => undefined);
        if (!audit) continue;
        const key = e.answers.map((a) => a.body.idempotencyKey).find((k) => typeof k === 'string');
        const turns = audit.turns.filter((t) => t.idempotencyKey === key).length;
        const delivered = e.answers.some((a) => a.status === 200 || a.status === 202);
        if (turns > 1 || (delivered && turns === 0))
          broken(
            h,
            'event-once',
            `event ${e.id} (delivered ${e.answers.length} times, answered ${e.answers.map((a) => a.status).join(', ')}) is ${turns} turns of conversation ${root.id}`,
          );
      }
    },
  },
];
