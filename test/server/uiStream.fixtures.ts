/**
 * What the UI stream test (uiStream.test.ts) runs on: a support agent's scripted answers, and the
 * options of the service and worker: the scripted model writing each answer word by word, and a
 * token of alice's that may start and decide.
 */
import { Team } from '../../src';
import type { ServeBatonOptions } from '../../src/server';
import type { CreateWorkerOptions } from '../../src/worker';
import { scriptedAgent } from '../helpers/agents';
import { STATIC_TOKENS } from './service';
import { WritingScripted } from './uiStream/writing';

/** A team of one agent, support, that answers its turns with `answers` in order. */
export function supportTeam(...answers: string[]): Team {
  return new Team([
    scriptedAgent(
      'support',
      answers.map((text) => ({ text })),
    ),
  ]);
}

/** The worker answers with {@link WritingScripted}; the service keeps a waiting stream alive every 200 ms. */
export const writing: { worker: Partial<CreateWorkerOptions>; service: Partial<ServeBatonOptions> } = {
  worker: { providers: { scripted: new WritingScripted() } },
  service: { uiStream: { keepAliveMs: 200 } },
};
/** alice chats and approves: a token that may start and decide. */
export const ALICE_CHATS = 'alice-chats-and-approves';
/** The service takes {@link ALICE_CHATS} beside its static tokens, and keeps a waiting stream alive every 200 ms. */
export const chatting: { service: Partial<ServeBatonOptions> } = {
  service: {
    uiStream: { keepAliveMs: 200 },
    auth: { tokens: [...STATIC_TOKENS, { token: ALICE_CHATS, identity: 'alice', roles: ['starter', 'approver'] }] },
  },
};
