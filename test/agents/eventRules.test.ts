import { describe, expect, it } from 'vitest';
import { defineAgent, scripted, Team, TeamValidationError } from '../../src';
import type { EventRule } from '../../src/agents';
import { Client, Connection } from '@temporalio/client';
import { eventInput, ruleFor, valueAt } from '../../src/agents/eventRules';
import { Baton } from '../../src/client/baton';
import { createBatonApp } from '../../src/server';

const agent = (id: string) => defineAgent({ id, instructions: `You are ${id}.`, model: scripted([{ text: 'ok' }]) });
const problemsOf = (events: unknown): string[] => {
  try {
    new Team([agent('intake'), agent('support')], { events: events as EventRule[] });
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(TeamValidationError);
    return (err as TeamValidationError).problems;
  }
};

describe('event rules of a team', () => {
  it('are checked when the team is defined, each problem naming the rule, the field and what is valid', () => {
    expect(
      problemsOf([
        { type: 'order.damaged', start: 'intake' },
        { type: 'customer.replied', message: { conversation: '$.data.ticket', agent: 'support', midTurn: 'enqueue' } },
      ]),
    ).toEqual([]);
    expect(problemsOf([{ type: 'order.damaged', start: 'nobody' }])).toEqual([
      'events[0].start "nobody" is not a registered agent (registered: intake, support)',
    ]);
    expect(problemsOf([{ type: 'x', message: { conversation: '$.data.ticket', agent: 'ghost' } }])).toEqual([
      'events[0].message.agent "ghost" is not a registered agent (registered: intake, support)',
    ]);
    expect(problemsOf([{ type: 'x', message: { conversation: 'data.ticket' } }])[0]).toMatch(
      /^events\[0\]\.message\.conversation must be the path of the conversation's id in the event: \$\.subject, .* got "data\.ticket"$/,
    );
    expect(problemsOf([{ type: 'x', message: { conversation: '$.subject', midTurn: 'later' } }])).toEqual([
      'events[0].message.midTurn must be one of enqueue, reject, interrupt, rollback, got "later"',
    ]);
    expect(problemsOf([{ type: 'x' }])).toEqual([
      'events[0] must have exactly one of "start" (an agent) or "message" ({conversation, agent?, midTurn?})',
    ]);
    expect(problemsOf([{ type: 'x', start: 'intake', message: { conversation: '$.subject' } }])[0]).toMatch(
      /exactly one of "start"/,
    );
    expect(problemsOf([{ type: '', start: 'intake', agnet: 'x' }])).toEqual([
      'events[0] has an unknown field "agnet" (fields: type, source, start, message, input, options)',
      'events[0].type must be the CloudEvent type, a non-empty string of at most 1000 characters',
    ]);
    expect(problemsOf([{ type: 'x', start: 'intake', input: 'Order {{data.order}}' }])[0]).toMatch(
      /events\[0\]\.input has the placeholder \{\{data\.order\}\}, which is not a path/,
    );
    expect(
      problemsOf([
        { type: 'x', start: 'intake' },
        { type: 'x', start: 'support' },
      ]),
    ).toEqual(['events[1] repeats the rule for type "x"; one rule per type and source']);
    // Run options of what the rule starts are checked as a start's are, each naming the rule.
    expect(
      problemsOf([{ type: 'x', start: 'intake', options: { maxHandoffs: 3, teamMismatchTimeout: '5 seconds' } }]),
    ).toEqual([]);
    const optionProblems = problemsOf([{ type: 'x', start: 'intake', options: { maxHandoffs: -1, retries: 2 } }]);
    expect(optionProblems).toHaveLength(2);
    expect(optionProblems.every((p) => p.startsWith('events[0].options'))).toBe(true);
    expect(optionProblems.join('\n')).toMatch(/unknown option "retries" \(valid: .*maxHandoffs/);
    expect(optionProblems.join('\n')).toMatch(/maxHandoffs/);
    expect(problemsOf([{ type: 'x', message: { conversation: '$.subject' }, options: 'fast' }])).toEqual([
      '"events[0].options" must be an object, got "fast"',
    ]);
    expect(problemsOf({ type: 'x' })).toEqual([
      'events must be an array of rules {type, source?, start | message, input?}',
    ]);
  });

  it('match on type, a rule naming the source first, and make the input from the event', () => {
    const rules: EventRule[] = [
      { type: 'replied', message: { conversation: '$.data.ticket' } },
      { type: 'replied', source: 'crm', start: 'intake', input: '{{$.subject}}: {{$.data.text}} ({{$.data.n}})' },
    ];
    const event = { id: '1', source: 'crm', type: 'replied', subject: 'T-1', data: { ticket: 7, text: 'hi', n: [1] } };
    expect(ruleFor(rules, event)).toBe(rules[1]);
    expect(ruleFor(rules, { ...event, source: 'web' })).toBe(rules[0]);
    expect(ruleFor(rules, { ...event, type: 'other' })).toBeUndefined();
    expect(valueAt(event, '$.data.ticket')).toBe(7);
    expect(valueAt(event, '$.data.n.0')).toBe(1);
    expect(valueAt(event, '$.data.missing.deeper')).toBeUndefined();
    expect(eventInput(rules[1]!, event)).toBe('T-1: hi ([1])');
    expect(eventInput(rules[0]!, event)).toBe('{"ticket":7,"text":"hi","n":[1]}');
    expect(() => eventInput(rules[1]!, { ...event, subject: undefined })).toThrow(/no value at \$\.subject/);
  });

  it("a service's own rules are checked when its app is made, against the agents it knows of; {type, agent} is {type, start: agent}", async () => {
    const connection = Connection.lazy({ address: '127.0.0.1:1' });
    const baton = new Baton({ client: new Client({ connection }) });
    const app = (rules: unknown[]) => () =>
      createBatonApp({
        baton,
        auth: { tokens: [{ token: 'a-token-of-sixteen+', identity: 'ops', roles: ['starter'] }] },
        metrics: false,
        agents: ['intake'],
        cloudEvents: { secret: 'a-shared-webhook-secret', rules: rules as never },
      });
    expect(
      app([
        { type: 'order.damaged', agent: 'intake' },
        { type: 'replied', message: { conversation: '$.subject' } },
      ]),
    ).not.toThrow();
    expect(app([{ type: 'order.damaged', agent: 'nobody' }])).toThrow(
      'cloudEvents.rules: cloudEvents.rules[0].start "nobody" is not a registered agent (registered: intake)',
    );
    expect(app([{ type: 'order.damaged', agent: 'intake', start: 'intake' }])).toThrow(
      'cloudEvents.rules[0] has both "agent" and "start" (give one)',
    );
    await connection.close();
  });
});
