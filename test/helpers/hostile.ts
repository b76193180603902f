/**
 * Hostile input (generated in hostileCases.ts): oversized and malformed fields sent by signal,
 * update and through the HTTP service to a chain waiting for an approval and to a conversation,
 * then one valid decision and one valid message. The invariants every target keeps whatever
 * arrives:
 *
 * - it is not ended by what was sent: still running until the valid input, then completed;
 * - the valid decision is taken (the chain completes with one handoff, approved by alice, decided
 *   once); the valid message is answered, as the turn after the messages that were taken;
 * - nothing is duplicated: each message taken is answered once, under its own turn;
 * - no workflow task failed, and what the workflow wrote per event stays bounded;
 * - no hostile input was taken as a decision, and the HTTP service refused each with a 4xx.
 *
 * Sizes stay below Temporal's 2 MB payload limit: an update over it can be answered by no worker
 * (docs/bad-inputs.md), and a history over 4 MB is not fully readable by one client call.
 *
 * No vitest here: the fuzzing drill (drill/fuzz.ts, `hostile` lanes) uses it too.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { scripted, Team, type Baton, type RunResult } from '../../src';
import {
  approveHandoffSignal,
  childApprovalsSignal,
  decideHandoffUpdate,
  forwardDecisionSignal,
  forwardedOutcomeSignal,
  overrideRunSignal,
  rejectHandoffSignal,
  sendMessageUpdate,
  type ConversationReply,
} from '../../src/workflow';
import { createBatonApp } from '../../src/server';
import { scriptedAgent } from './agents';
import { failedTasks, MAX_MEMO_BYTES, writes } from './hostileHistory';
import { bytes, type ChainCase, type ConversationCase, type HostileScenario, REAL_ID } from './hostileCases';

/** `front` hands to `vault`, which only alice may approve; `chat` answers every message. */
export const hostileTeam = (): Team =>
  new Team([
    scriptedAgent('front', [], {
      model: scripted({ rules: [{ whenIncludes: '', reply: { handoff: { to: 'vault', message: 'open it' } } }] }),
      handoffs: ['vault'],
    }),
    scriptedAgent('vault', [], {
      model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'opened' } }] }),
      approval: { approvers: ['alice'] },
    }),
    scriptedAgent('chat', [], { model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'ok' } }] }) }),
  ]);

export const HOSTILE_TOKENS = [
  { token: 'hostile-alice-token', identity: 'alice', roles: ['approver' as const] },
  { token: 'hostile-mallory-token', identity: 'mallory', roles: ['approver' as const] },
  { token: 'hostile-starter-token', identity: 'ops', roles: ['starter' as const] },
];

/** How one target came through. */
export interface HostileReport {
  target: 'chain' | 'conversation';
  workflowId: string;
  /** Hostile inputs sent to it. */
  cases: number;
  /** How they were sent: by signal, update or HTTP. */
  channels: { signal: number; update: number; http: number };
  /** Bytes of JSON they carried. */
  bytes: number;
  /** Ended (or wedged) by what was sent, before the valid input. */
  endedByThem: boolean;
  violations: string[];
}

/** A request Temporal itself refused for its size: nothing was sent. */
const refusedByTemporal = (err: unknown) =>
  /size|too large|exceed|larger than/i.test(`${String(err)} ${String((err as { cause?: unknown }).cause)}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A runner of {@link HostileScenario}s against `baton`'s worker, with an HTTP service of its own;
 * resolves with a report per target, or throws naming the invariants broken.
 */
export function hostileRunner(
  baton: Baton,
  prefix: string,
  onReport?: (reports: HostileReport[]) => void,
): (s: HostileScenario) => Promise<void> {
  const app = createBatonApp({
    baton,
    auth: { tokens: HOSTILE_TOKENS },
    agents: ['front', 'vault', 'chat'],
    rateLimit: { startsPerMinute: 100_000 },
    metrics: false,
    log: () => undefined,
  });
  const http = (path: string, token: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : (JSON.stringify(body) ?? 'null'),
    });
  let n = 0;
  return async (s) => {
    const index = n++;
    const reports = await Promise.all([
      attackChain(baton, http, `${prefix}-c${index}`, s.chain),
      attackConversation(baton, http, `${prefix}-m${index}`, s.conversation),
    ]);
    onReport?.(reports);
    const broken = reports.filter((r) => r.violations.length > 0);
    if (broken.length > 0)
      throw new Error(broken.map((r) => `${r.target} ${r.workflowId}: ${r.violations.join('; ')}`).join('\n'));
  };
}

type Http = (
  path: string,
  token: string,
  body: unknown,
  headers?: Record<string, string>,
) => Promise<Response> | Response;

const isResult = (v: unknown): v is RunResult => typeof v === 'object' && v !== null && 'handoffChain' in v;
const isReply = (v: unknown): v is ConversationReply => typeof v === 'object' && v !== null && 'turn' in v;

const channels = (cases: (ChainCase | ConversationCase)[]) => ({
  signal: cases.filter(
    (c) => c.kind === 'signal' || c.kind === 'override' || c.kind === 'report' || c.kind === 'forward',
  ).length,
  update: cases.filter((c) => c.kind === 'update' || c.kind === 'message').length,
  http: cases.filter((c) => c.kind === 'http').length,
});

const withRealId = (v: unknown, id: string): unknown =>
  v === REAL_ID
    ? id
    : Array.isArray(v)
      ? v
      : v && typeof v === 'object' && (v as { handoffId?: unknown }).handoffId === REAL_ID
        ? { ...v, handoffId: id }
        : v;
const token = (as: 'alice' | 'mallory') => HOSTILE_TOKENS.find((t) => t.identity === as)!.token;

async function attackChain(baton: Baton, http: Http, workflowId: string, cases: ChainCase[]): Promise<HostileReport> {
  const violations: string[] = [];
  const run = await baton.start('front', 'please open the vault', { workflowId });
  const handle = run.handle as WorkflowHandle;
  let id = '';
  for (let i = 0; i < 200 && !id; i++) {
    id = (await run.pendingApprovals())[0]?.handoffId ?? '';
    if (!id) await sleep(50);
  }
  for (const c of cases) {
    try {
      if (c.kind === 'signal')
        await handle.signal(
          c.name === 'approveHandoff' ? approveHandoffSignal : rejectHandoffSignal,
          withRealId(c.payload, id) as never,
        );
      else if (c.kind === 'override') await handle.signal(overrideRunSignal, c.payload as never);
      else if (c.kind === 'report') await handle.signal(childApprovalsSignal, c.payload as never);
      else if (c.kind === 'forward')
        await handle.signal(
          (c.name === 'forwardDecision'
            ? forwardDecisionSignal
            : forwardedOutcomeSignal) as typeof forwardDecisionSignal,
          withRealId(c.payload, id) as never,
        );
      else if (c.kind === 'update') {
        const taken = await handle
          .executeUpdate(decideHandoffUpdate, { args: [withRealId(c.payload, id) as never] })
          .then(
            () => true,
            () => false,
          );
        if (taken)
          violations.push(`a hostile decision by update was taken: ${JSON.stringify(c.payload).slice(0, 200)}`);
      } else {
        const res = await http(
          `/v1/runs/${encodeURIComponent(workflowId)}/approvals/${encodeURIComponent(c.approvalId === REAL_ID ? id : c.approvalId)}`,
          token(c.as),
          c.body,
        );
        if (res.status < 400 || res.status >= 500)
          violations.push(`HTTP decision as ${c.as} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
      }
    } catch (err) {
      // A request Temporal itself refuses (a payload it cannot take) sends nothing.
      if (!refusedByTemporal(err)) violations.push(`sending ${c.kind} failed: ${String(err).slice(0, 200)}`);
    }
  }
  const status = (await handle.describe()).status.name;
  const endedByThem = status !== 'RUNNING' || (await run.pendingApprovals()).map((p) => p.handoffId).join() !== id;
  if (endedByThem) violations.push(`ended or changed by hostile input: ${status}`);
  else {
    await baton.approve(workflowId, id, { approver: 'alice' });
    const result: unknown = await Promise.race([run.result(), sleep(30_000).then(() => undefined)]).catch(
      (e: unknown) => e,
    );
    if (!isResult(result)) violations.push(`did not complete after the valid decision: ${String(result)}`);
    else if (
      result.output !== 'opened' ||
      result.handoffChain.length !== 1 ||
      result.handoffChain[0]!.approval?.approver !== 'alice'
    )
      violations.push(`unexpected result ${JSON.stringify(result).slice(0, 300)}`);
  }
  const failed = await failedTasks(handle);
  if (failed.length > 0) violations.push(`failed workflow tasks: ${failed.join(' | ')}`);
  const { memo, decided } = await writes(handle);
  if (memo > MAX_MEMO_BYTES) violations.push(`a memo upsert of ${memo} bytes`);
  if (!endedByThem && decided !== 1) violations.push(`${decided} decisions applied, not 1`);
  return {
    target: 'chain',
    workflowId,
    cases: cases.length,
    channels: channels(cases),
    bytes: cases.reduce((n, c) => n + bytes(c), 0),
    endedByThem,
    violations,
  };
}

async function attackConversation(
  baton: Baton,
  http: Http,
  workflowId: string,
  cases: ConversationCase[],
): Promise<HostileReport> {
  const violations: string[] = [];
  const chat = baton.conversation('chat', { id: workflowId });
  const first = await chat.send('hello');
  const handle = chat.handle as WorkflowHandle;
  const turns: number[] = [first.turn];
  for (const c of cases) {
    try {
      if (c.kind === 'message') {
        const reply = await handle
          .executeUpdate(sendMessageUpdate, { args: [c.payload as never] })
          .catch(() => undefined);
        if (reply) turns.push(reply.turn);
      } else if (c.kind === 'http') {
        const res = await http(
          `/v1/conversations/${encodeURIComponent(workflowId)}/messages`,
          HOSTILE_TOKENS[2]!.token,
          c.body,
          c.key !== undefined ? { 'idempotency-key': c.key } : {},
        );
        if (res.status === 200) turns.push(((await res.json()) as { turn: number }).turn);
        else if (res.status < 400 || res.status >= 500)
          violations.push(`HTTP message answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
      } else if (c.kind === 'signal') await handle.signal(approveHandoffSignal, c.payload as never);
      else if (c.kind === 'override') await handle.signal(overrideRunSignal, c.payload as never);
      else await handle.signal(childApprovalsSignal, c.payload as never);
    } catch (err) {
      if (!refusedByTemporal(err)) violations.push(`sending ${c.kind} failed: ${String(err).slice(0, 200)}`);
    }
  }
  const status = (await handle.describe()).status.name;
  const endedByThem = status !== 'RUNNING';
  if (endedByThem) violations.push(`ended by hostile input: ${status}`);
  else {
    const last: unknown = await Promise.race([
      chat.send('one valid message'),
      sleep(30_000).then(() => undefined),
    ]).catch((e: unknown) => e);
    if (!isReply(last)) violations.push(`the valid message was not answered: ${String(last)}`);
    else {
      const distinct = [...new Set(turns)].sort((a, b) => a - b);
      if (distinct.some((t, i) => t !== i + 1)) violations.push(`turns taken ${JSON.stringify(turns)} are not 1..n`);
      if (last.turn !== distinct.length + 1)
        violations.push(`the valid message was answered as turn ${last.turn}, after ${distinct.length} taken`);
    }
    const ended = await chat.end().catch((e: unknown) => e);
    if (ended instanceof Error) violations.push(`did not end: ${ended.message}`);
  }
  const failed = await failedTasks(handle);
  if (failed.length > 0) violations.push(`failed workflow tasks: ${failed.join(' | ')}`);
  const { memo } = await writes(handle);
  if (memo > MAX_MEMO_BYTES) violations.push(`a memo upsert of ${memo} bytes`);
  return {
    target: 'conversation',
    workflowId,
    cases: cases.length,
    channels: channels(cases),
    bytes: cases.reduce((n, c) => n + bytes(c), 0),
    endedByThem,
    violations,
  };
}
