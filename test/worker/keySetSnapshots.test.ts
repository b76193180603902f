/**
 * What a worker logs of its team's published key sets as new chains take their snapshots: a set's
 * first failure, its copy grown too old to trust and its recovery, once each, however many chains
 * start while it is down. Every snapshot still records the set's state.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { keySetSnapshots } from '../../activities/keySets';
import type { KeySetRecord } from '../../src/common/signatures/jwks';
import type { TeamSpec } from '../../src/common/team';

const url = 'https://idp.example.com/jwks';
const key = { kid: 'idp-alice-1', approvers: ['alice'], publicKey: 'x' };
const good: KeySetRecord = { url, fetchedAt: '2026-03-01T12:00:00.000Z', keys: [key] };
const down = (problem: string): KeySetRecord => ({
  ...good,
  error: `${problem}; its keys are those of the copy fetched at ${good.fetchedAt}`,
});
const tooOld: KeySetRecord = {
  ...good,
  keys: [],
  error: 'answered HTTP 503; its last good copy is older than 3600 s, so none of its keys is trusted',
};
const other: KeySetRecord = { url: 'https://other.example.com/jwks', fetchedAt: good.fetchedAt, keys: [key] };

describe('the key sets of new chains’ snapshots', () => {
  it('are logged when a set’s state changes, not with every chain', async () => {
    const logged: LogEntry[] = [];
    const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('INFO', (e) => logged.push(e)) });
    const snapshots = keySetSnapshots();
    const spec = { name: 'idp' } as unknown as TeamSpec;
    const chains: KeySetRecord[][] = [
      [good, other],
      [down('answered HTTP 503'), other],
      [down('answered HTTP 503'), other],
      [down('could not be fetched (timeout)'), other],
      [tooOld, other],
      [tooOld, other],
      [{ ...good, fetchedAt: '2026-03-01T13:05:00.000Z' }, other],
      [{ ...good, fetchedAt: '2026-03-01T13:10:00.000Z' }, other],
    ];
    for (const keySets of chains)
      expect(await env.run(() => Promise.resolve(snapshots(spec, keySets)))).toEqual({ name: 'idp', keySets });
    expect(logged.map(({ level, message, meta }) => ({ level, message, url: meta?.url }))).toEqual([
      { level: 'WARN', message: `the team's key set ${url} ${down('answered HTTP 503').error}`, url },
      { level: 'WARN', message: `the team's key set ${url} ${tooOld.error}`, url },
      {
        level: 'INFO',
        message: `the team's key set ${url} is fetched again: new chains trust its keys as fetched at 2026-03-01T13:05:00.000Z`,
        url,
      },
    ]);
  });
});
