/** Rows of docs/bad-inputs.md that no other test covered. */
import { describe, expect, it } from 'vitest';
import { defineAgent, handoff, InvalidRunInputError, scripted, Team, TeamValidationError } from '../../src';
import { UserError } from '../../src/workflow';
import { MAX_CONTEXT_BYTES, overrideProblems, sendMessageProblems, validateRunInput } from '../../src/common/input';
import { conversationOptionProblems } from '../../src/common/conversationOptions';

const problemsOf = (value: unknown): string[] => {
  try {
    validateRunInput(value);
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidRunInputError);
    return (e as InvalidRunInputError).problems;
  }
};

describe('bad inputs without a test elsewhere', () => {
  it.each(['', '   \n'])('refuses the run input %j: the first agent would have nothing to do', (input) => {
    expect(problemsOf({ agent: 'a', input })).toEqual([
      '"input" must not be empty: it is what the first agent is asked',
    ]);
  });

  it('refuses a context that is not a JSON object, or over 64 KB of JSON', () => {
    expect(problemsOf({ agent: 'a', input: 'hi', context: ['x'] })).toEqual([
      '"context" must be a JSON object, got ["x"]',
    ]);
    expect(problemsOf({ agent: 'a', input: 'hi', context: { blob: 'x'.repeat(MAX_CONTEXT_BYTES) } })).toEqual([
      expect.stringMatching(
        /^"context" is 65\d{3} bytes of JSON; at most 65536 \(give tools large or secret things when the worker builds them\)$/,
      ),
    ]);
  });

  it('refuses an agent whose approval policy is not one', () => {
    const make = () =>
      defineAgent({
        id: 'refunds',
        instructions: 'Refund.',
        model: scripted([{ text: 'ok' }]),
        approval: { timeout: 'soon', onTimeout: 'maybe' } as never,
      });
    expect(make).toThrow(UserError);
    expect(make).toThrow(/"approval.onTimeout" must be "reject" or "approve" or "fail"/);
  });

  it('refuses overrides naming an agent the team does not have, or a model that is not a spec', () => {
    expect(overrideProblems({ models: { ghost: { provider: 'openai', model: 'gpt-4o' } } }, ['a', 'b'])).toEqual([
      '"overrides.models.ghost": "ghost" is not in the team (a, b)',
    ]);
    expect(overrideProblems({ models: { a: 'gpt-4o' } }, ['a'])).toEqual([
      expect.stringMatching(/^"overrides.models.a" must be a model spec/),
    ]);
    expect(overrideProblems({ colour: 'red' })).toEqual([expect.stringMatching(/unknown field/)]);
  });

  it('refuses a mid-turn policy and a returnTo that are not one', () => {
    expect(sendMessageProblems({ message: 'hi', midTurn: 'later' })).toEqual([
      expect.stringMatching(
        /^"sendMessage\.midTurn" must be "enqueue" or "reject" or "interrupt" or "rollback", got "later"$/,
      ),
    ]);
    expect(conversationOptionProblems({ midTurn: 'later' })).toEqual([
      expect.stringMatching(
        /^"conversation\.midTurn" must be "enqueue" or "reject" or "interrupt" or "rollback", got "later"$/,
      ),
    ]);
    const model = scripted([{ text: 'ok' }]);
    const team = () =>
      new Team([
        defineAgent({
          id: 'triage',
          instructions: 'Triage.',
          model,
          handoffs: [handoff('refunds', { returnTo: 'nobody' })],
        }),
        defineAgent({ id: 'refunds', instructions: 'Refund.', model, returnTo: 'somebody' }),
      ]);
    expect(team).toThrow(TeamValidationError);
    expect(team).toThrow(
      /agent "triage" \(handoff to refunds\) has returnTo "nobody", which is not "stay", "caller" or a registered agent \(registered: triage, refunds\)/,
    );
    expect(team).toThrow(/agent "refunds" has returnTo "somebody"/);
  });
});
