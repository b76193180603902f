import { describe, expect, it } from 'vitest';
import { createWorker, defineAgent, model, TeamValidationError, Team } from '../../src';

describe('createWorker and model providers', () => {
  it('refuses a team whose agent needs a provider the worker does not have, before connecting', async () => {
    const team = new Team([defineAgent({ id: 'a', instructions: 'A', model: model('anthropic', 'claude') })]);
    const failure = await createWorker({ team }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TeamValidationError);
    expect((failure as TeamValidationError).problems).toEqual([
      'agent "a" uses model provider "anthropic", which this worker does not have (it has openai, scripted, ai-sdk); pass createWorker({ providers: { anthropic: … } }), or give the agent an AI SDK model with aiSdk(model)',
    ]);
  });
});
