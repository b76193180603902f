/**
 * The stream broker down: Redis, which the workers publish model text to and followers read it
 * from, stopped while chains run and started again on its port after a while, within the step or
 * while the next steps go on (so answers given meanwhile stream into the outage). Chains must not
 * notice; each follower's stream says once that the text is unavailable and still ends with every
 * answer, whole, from history (`follower-text`); the client's transport reports the loss once and
 * the return once.
 */
import fc from 'fast-check';
import { broken, clip, operation, type Harness, type Invariant } from '../harness';
import { openRoots } from '../model';

/** How long the end invariant waits for the client's transport to say the broker is back. */
const BACK_WITHIN_MS = 15_000;

export const brokerOperations = [
  operation({
    name: 'broker_down',
    group: 'faults',
    weight: 2,
    params: fc.record({ downMs: fc.integer({ min: 300, max: 4000 }), across: fc.boolean() }),
    applies: (m) => openRoots(m).length > 0,
    async run(h, p) {
      // Without a broker (no redis-server on the machine) text does not stream through one: nothing goes down.
      if (!h.system.streamsThroughBroker) return;
      // Streams reading now must each be told (those not reading yet may start after the return).
      for (const r of h.model.roots)
        for (const s of r.follower?.streams ?? []) if (s.items > 0 && s.ended === undefined) s.outages++;
      await h.system.brokerOutage(p.downMs, p.across);
    },
  }),
];

export const brokerInvariants: Invariant[] = [
  {
    // The client's transport tells of a loss once until the broker is back, and of the return once.
    name: 'broker-told-once',
    when: 'step',
    async check(h) {
      const changes = h.system.brokerChanges;
      for (let i = 0; i < changes.length; i++) {
        const expected = i % 2 === 1;
        if (changes[i] !== expected)
          return broken(
            h,
            'broker-told-once',
            `the client's stream transport said ${clip(changes.map((up) => (up ? 'back' : 'lost')))}: change ${i + 1} should say ${expected ? 'back' : 'lost'}`,
          );
      }
    },
  },
  {
    // A follower's stream says at most once that the text is unavailable; one reading when the broker went down, and that ended with the chain, said it.
    name: 'text-unavailable-once',
    when: 'step',
    async check(h) {
      for (const r of h.model.roots) {
        (r.follower?.streams ?? []).forEach((s, i) => {
          if (s.told > 1)
            broken(
              h,
              'text-unavailable-once',
              `${r.id}: stream ${i + 1} of its follower said text_unavailable ${s.told} times`,
            );
          if (s.ended && s.outages > 0 && s.told === 0)
            broken(
              h,
              'text-unavailable-once',
              `${r.id}: stream ${i + 1} of its follower was reading when the broker went down, and ended with the chain without saying text_unavailable`,
            );
        });
      }
    },
  },
  {
    // After an outage the same transport reconnects by itself: it says the broker is back.
    name: 'broker-reconnects',
    when: 'end',
    async check(h: Harness) {
      await h.system.brokerUp();
      const changes = h.system.brokerChanges;
      for (const deadline = Date.now() + BACK_WITHIN_MS; changes.at(-1) === false && Date.now() < deadline;)
        await new Promise((r) => setTimeout(r, 100));
      if (changes.at(-1) === false)
        broken(
          h,
          'broker-reconnects',
          `the client's stream transport did not say the broker was back within ${BACK_WITHIN_MS / 1000} s of its return`,
        );
    },
  },
];
