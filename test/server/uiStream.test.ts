/**
 * The AI SDK's UI message stream on the HTTP service, driven by the SDK's own client code (`Chat`,
 * `DefaultChatTransport`, `readUIMessageStream`) on a real Temporal server and worker: a turn, a
 * handoff approved in the chat, a tool call approved in the chat, a request sent again, a retried
 * model call's text, and what a caller who may not decide sees.
 */
import { describe, expect, it } from 'vitest';
import { messageQuery } from '../../src/common/messages';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { TOKENS, withService } from './service';
import { refundTeam, toolApprovalTeam } from './team';
import {
  allTextOf,
  approvalCard,
  chatAt,
  lastAnswer,
  post,
  resumedUntilKeptAlive,
  settled,
  storedMessages,
  textOf,
  toolPart,
  userMessage,
  withApproval,
} from './uiStream/client';
import { ALICE_CHATS, chatting, supportTeam, writing } from './uiStream.fixtures';
import { DRAFT_TEXT } from './uiStream/writing';

const server = useTemporalServer();

describe('useChat against a baton conversation', () => {
  it('streams a turn as it is written; the chat ends with the reply history records, and the next message needs no agent', async () => {
    const team = supportTeam('Your order 42 ships on Monday.', 'You are welcome.');
    await withService(
      server.env,
      team,
      async ({ service, baton }) => {
        const id = `ui-turn-${Date.now()}`;
        const chat = chatAt(service.url, TOKENS.ops, id, { agent: 'support' });
        await chat.sendMessage({ text: 'When does order 42 ship?' });
        const first = await settled(chat);
        expect(textOf(lastAnswer(first))).toBe('Your order 42 ships on Monday.');
        const second = chatAt(service.url, TOKENS.ops, id);
        second.messages = first;
        await second.sendMessage({ text: 'Thanks!' });
        const messages = await settled(second);
        expect(messages.map((m) => [m.role, m.role === 'user' ? textOf(m) : textOf(m)])).toEqual([
          ['user', 'When does order 42 ship?'],
          ['assistant', 'Your order 42 ships on Monday.'],
          ['user', 'Thanks!'],
          ['assistant', 'You are welcome.'],
        ]);
        const turns = await baton.conversation('support', { id }).history();
        expect(turns.map((t) => [t.message, t.output])).toEqual([
          ['When does order 42 ship?', 'Your order 42 ships on Monday.'],
          ['Thanks!', 'You are welcome.'],
        ]);
        // Each user message's id is its turn's idempotency key; the answers are named after them.
        for (const m of [messages[0]!, messages[2]!]) {
          const found = await baton.client.workflow.getHandle(id).query(messageQuery, { idempotencyKey: m.id });
          expect(found.message).toMatchObject({ status: 'answered', idempotencyKey: m.id });
        }
        expect(messages[1]!.id).toBe(`${messages[0]!.id}:answer`);
        // The stored chat is the streamed one.
        const stored = await storedMessages(service.url, TOKENS.viewer, id);
        expect(stored.map((m) => [m.id, textOf(m)])).toEqual(messages.map((m) => [m.id, textOf(m)]));
      },
      writing,
    );
  });

  it('a chain through /v1/ui/runs: the message starts it, the same request again follows the same chain, a second message is refused', async () => {
    const team = supportTeam('Order 42 ships on Monday.');
    await withService(
      server.env,
      team,
      async ({ service, baton }) => {
        const id = `ui-run-${Date.now()}`;
        const body = { id, agent: 'support', messages: [userMessage('r-1', 'When does order 42 ship?')] };
        const [a, b] = await Promise.all([
          post(service.url, TOKENS.ops, body, '/v1/ui/runs'),
          post(service.url, TOKENS.ops, body, '/v1/ui/runs'),
        ]);
        for (const r of [a, b]) {
          expect([r.status, r.message?.id, textOf(r.message!), r.chunks.at(-1)]).toEqual([
            200,
            `${id}:answer`,
            'Order 42 ships on Monday.',
            { type: 'finish', finishReason: 'stop' },
          ]);
        }
        expect((await baton.getRun(id).result()).output).toBe('Order 42 ships on Monday.');
        const more = await post(
          service.url,
          TOKENS.ops,
          {
            ...body,
            messages: [
              ...body.messages,
              { id: `${id}:answer`, role: 'assistant', parts: [{ type: 'text', text: 'Order 42 ships on Monday.' }] },
              userMessage('r-2', 'And order 43?'),
            ],
          },
          '/v1/ui/runs',
        );
        expect(more.status).toBe(409);
      },
      writing,
    );
  });

  it('a message sent again (same id) is answered once; a retried model call shows its final text, not its draft', async () => {
    const team = supportTeam('DRAFT The refund is on its way.', 'Second answer.');
    await withService(
      server.env,
      team,
      async ({ service, baton }) => {
        const id = `ui-again-${Date.now()}`;
        const body = {
          id,
          agent: 'support',
          trigger: 'submit-message',
          messages: [userMessage('m-1', 'Where is my refund?')],
        };
        const [a, b] = await Promise.all([post(service.url, TOKENS.ops, body), post(service.url, TOKENS.ops, body)]);
        expect([a.status, b.status, a.problem, b.problem]).toEqual([200, 200, undefined, undefined]);
        expect(a.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
        for (const r of [a, b]) {
          expect(r.message?.id).toBe('m-1:answer');
          expect(textOf(r.message!)).toBe('The refund is on its way.');
          expect(r.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
        }
        // The draft was streamed as it was written, then named replaced: the stream only adds text.
        for (const r of [a, b]) {
          if (!r.chunks.some((c) => c.type === 'text-delta' && c.delta === DRAFT_TEXT)) continue;
          expect(allTextOf(r.message!)).toBe(`${DRAFT_TEXT}The refund is on its way.`);
          expect(r.chunks.filter((c) => c.type === 'data-text-reset')).toHaveLength(1);
        }
        expect(
          [a, b].some((r) => allTextOf(r.message!).startsWith(DRAFT_TEXT)),
          'a follower saw the draft',
        ).toBe(true);
        // Sent once more after its answer: still the same answer, whole, from history.
        const late = await post(service.url, TOKENS.ops, body);
        expect(textOf(late.message!)).toBe('The refund is on its way.');
        const turns = await baton.conversation('support', { id }).history();
        expect(turns.map((t) => t.message)).toEqual(['Where is my refund?']);
      },
      writing,
    );
  });

  it('a handoff waiting for alice is an approval card in her chat; approving it there continues the chain with her as approver', async () => {
    await withService(
      server.env,
      refundTeam(),
      async ({ service, baton }) => {
        const id = `ui-handoff-${Date.now()}`;
        const chat = chatAt(service.url, ALICE_CHATS, id, { agent: 'triage' });
        await chat.sendMessage({ text: 'My teapot of order 42 arrived broken.' });
        const waiting = lastAnswer(await settled(chat));
        const handoff = toolPart(waiting, 'handoff');
        expect(handoff).toMatchObject({
          state: 'approval-requested',
          input: { to: 'refunds', message: 'Refund order 42: it arrived broken.' },
        });
        const card = approvalCard(waiting);
        expect(card?.data).toMatchObject({
          kind: 'handoff',
          status: 'waiting',
          from: 'triage',
          to: 'refunds',
          approvers: ['alice'],
          decidable: true,
        });

        await chat.addToolApprovalResponse({ id: handoff!.approval!.id, approved: true, reason: 'broken on arrival' });
        const answer = lastAnswer(await settled(chat));
        expect(answer.id).toBe(waiting.id);
        expect(toolPart(answer, 'handoff')).toMatchObject({
          state: 'output-available',
          output: { handedOffTo: 'refunds' },
        });
        expect(toolPart(answer, 'lookupOrder')).toMatchObject({
          state: 'output-available',
          output: { orderId: '42', status: 'delivered' },
        });
        expect(textOf(answer)).toBe('Refunded order 42.');
        expect(answer.parts.filter((p) => p.type === 'data-handoff').map((p) => (p as { data: unknown }).data)).toEqual(
          [{ from: 'triage', to: 'refunds', message: 'Refund order 42: it arrived broken.', approvedBy: 'alice' }],
        );

        const [turn] = await baton.conversation('triage', { id }).history();
        expect(turn?.output).toBe('Refunded order 42.');
        const audit = await baton.audit(id);
        const decided = audit.events.filter((e) => e.kind === 'approval_decided');
        expect(decided).toHaveLength(1);
        expect(decided[0]).toMatchObject({ outcome: 'approved', approver: 'alice', comment: 'broken on arrival' });
      },
      chatting,
    );
  });

  it('a tool call waiting for approval: shown waiting to ops, who may not decide it; alice approves it in her chat and its output streams', async () => {
    await withService(
      server.env,
      toolApprovalTeam(),
      async ({ service, baton }) => {
        const id = `ui-tool-${Date.now()}`;
        // ops may not decide it: its stream shows the call and the approval waiting, and stays open (kept alive) until someone decides.
        const opsStream = post(service.url, TOKENS.ops, {
          id,
          agent: 'refunds',
          messages: [userMessage('t-1', 'Refund order A1, please.')],
        });
        const [waiting] = await waitFor(
          () =>
            baton
              .getRun(id)
              .pendingApprovals()
              .catch(() => []),
          (p) => p.length === 1,
        );
        const stored = (token: string) => storedMessages(service.url, token, id);
        const opsSees = lastAnswer(await stored(TOKENS.ops));
        expect(toolPart(opsSees, 'issueRefund')).toMatchObject({
          state: 'input-available',
          input: { orderId: 'A1', amount: 250 },
        });
        const card = approvalCard(opsSees)!;
        expect(card.data).toMatchObject({
          approvalId: waiting!.handoffId,
          kind: 'tool',
          status: 'waiting',
          tool: 'issueRefund',
          approvers: ['alice'],
          decidable: false,
        });

        // While it waits for someone else, the stream is kept alive (a comment every keepAliveMs), here on a resumed stream.
        const raw = await resumedUntilKeptAlive(service.url, TOKENS.ops, id, 2);
        expect((raw.match(/: keep-alive/g) ?? []).length).toBeGreaterThanOrEqual(2);
        expect(raw).toContain('"type":"tool-input-available"');

        // An approval response from someone the policy does not name is refused, and nothing is decided.
        const forged = withApproval(opsSees, 'issueRefund', card.data.approvalId as string);
        const refused = await post(service.url, TOKENS.ops, {
          id,
          messages: [userMessage('t-1', 'Refund order A1, please.'), forged],
        });
        expect([refused.status, (refused.problem as { detail?: string }).detail]).toEqual([
          403,
          'ops may not decide this tool call (approvers: alice)',
        ]);
        expect(await baton.getRun(id).pendingApprovals()).toHaveLength(1);

        // alice's chat loads the conversation and approves the call from its card.
        const chat = chatAt(service.url, ALICE_CHATS, id);
        chat.messages = await stored(ALICE_CHATS);
        const part = toolPart(lastAnswer(chat.messages), 'issueRefund')!;
        expect(part).toMatchObject({ state: 'approval-requested', approval: { id: card.data.approvalId } });
        await chat.addToolApprovalResponse({ id: part.approval!.id, approved: true });
        const answer = lastAnswer(await settled(chat));
        expect(toolPart(answer, 'issueRefund')).toMatchObject({
          state: 'output-available',
          output: { orderId: 'A1', refunded: 250 },
        });
        expect(textOf(answer)).toBe('Refund issued.');
        const audit = await baton.audit(id);
        expect(audit.events.filter((e) => e.kind === 'approval_decided')).toMatchObject([
          { outcome: 'approved', approver: 'alice' },
        ]);
        expect(audit.events.filter((e) => e.kind === 'tool_call')).toHaveLength(1);
        // ops's stream, open all along, ends with the same answer; it never offered ops the decision.
        const opsView = await opsStream;
        expect(opsView.chunks.some((c) => c.type === 'tool-approval-request')).toBe(false);
        expect(opsView.chunks.filter((c) => c.type === 'data-approval').at(-1)).toMatchObject({
          data: { status: 'approved', approver: 'alice' },
        });
        expect(toolPart(opsView.message!, 'issueRefund')).toMatchObject({
          state: 'output-available',
          output: { orderId: 'A1', refunded: 250 },
        });
        expect(textOf(opsView.message!)).toBe('Refund issued.');
        expect(opsView.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
      },
      chatting,
    );
  });
});
