/** The routing strategies' choice, as a pure function of the candidates and the figures. */
import { describe, expect, it } from 'vitest';
import { pickSpecialist } from '../../src/common/routing';

const candidates = ['a', 'b', 'c'];
const context = { root: 'chain-1', kind: 'refunds', turn: 0 };

describe('picking among equal specialists', () => {
  it('round robin moves one on per request of a kind, from a place the chain sets', () => {
    const picks = [0, 1, 2, 3].map((turn) => pickSpecialist('round_robin', candidates, { ...context, turn }));
    const offset = picks[0]!.figures.offset!;
    expect(picks.map((p) => p.chosen)).toEqual([0, 1, 2, 3].map((t) => candidates[(offset + t) % 3]));
    // Chains start at different places: over many roots, every candidate is first.
    const firsts = new Set(
      Array.from(
        { length: 30 },
        (_, i) => pickSpecialist('round_robin', candidates, { ...context, root: `chain-${i}` }).chosen,
      ),
    );
    expect(firsts).toEqual(new Set(candidates));
  });

  it('least loaded takes the fewest in flight, the first in team order on a tie', () => {
    const figures = { inFlight: { a: 2, b: 0, c: 0 }, readAt: '2026-01-01T00:00:00Z' };
    expect(pickSpecialist('least_loaded', candidates, { ...context, figures })).toMatchObject({
      chosen: 'b',
      reason: 'fewest chains in flight (a 2, b 0, c 0)',
    });
  });

  it('success rate counts a specialist with no record as 1/2, and breaks ties by load', () => {
    const figures = {
      inFlight: { a: 0, b: 3, c: 1 },
      recent: { a: { completed: 0, failed: 2 }, b: { completed: 1, failed: 1 }, c: { completed: 0, failed: 0 } },
      readAt: 'x',
    };
    expect(pickSpecialist('success_rate', candidates, { ...context, figures })).toMatchObject({
      chosen: 'c',
      figures: { successRate: { a: 0.25, b: 0.5, c: 0.5 } },
    });
  });

  it('takes the first in team order when the figures could not be read, and says why', () => {
    expect(pickSpecialist('least_loaded', candidates, { ...context, unavailable: 'visibility is down' })).toEqual({
      chosen: 'a',
      reason: 'first in team order: the figures could not be read (visibility is down)',
      figures: { unavailable: 'visibility is down' },
    });
  });
});
