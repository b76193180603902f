/** Reading a run's events from its history: the memo events the controls record. */
import { describe, expect, it } from 'vitest';
import { controlEvent } from '../../src/client/events';

describe('run events', () => {
  it('turn a control memo event into the ControlEvent it records', () => {
    expect(
      controlEvent({
        control: 'breaker_opened',
        at: '2026-01-01T00:00:00.000Z',
        agent: 'billing',
        failures: 3,
        until: '2026-01-01T00:01:00.000Z',
      }),
    ).toEqual({
      kind: 'breaker_opened',
      agent: 'billing',
      failures: 3,
      until: '2026-01-01T00:01:00.000Z',
    });
    expect(
      controlEvent({
        control: 'loop_detected',
        at: 'x',
        from: 'a',
        to: 'b',
        cycle: ['a', 'b', 'a'],
        pattern: 'oscillation',
        refused: false,
      }),
    ).toEqual({
      kind: 'loop_detected',
      from: 'a',
      to: 'b',
      cycle: ['a', 'b', 'a'],
      pattern: 'oscillation',
      refused: false,
    });
  });
});
