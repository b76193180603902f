/**
 * Remote specialists in the harness: triage delegates to `ledger`, an agent of another team
 * (../remoteTeam.ts) served over A2A by baton's service on a port of its own, with a worker of that
 * team, both in the harness's process on the system's server (../remote.ts).
 * `answer_remote_delegate` answers a waiting call with that delegation and, once the remote task
 * works, may take the remote service down (its connections dropped, as a crash drops them) and
 * bring it back on its port after a while, or SIGKILL the worker process whose `callRemoteAgent`
 * waits on the task, or both. (The remote service runs in process because `baton serve` takes some
 * ten seconds to boot here, more than a bounded run's sequences may take; test/integration/
 * remoteDelegation.test.ts SIGKILLs the real one.) The end invariant `remote-once` says no
 * delegation started its remote task twice, and every remote task ended.
 */
import fc from 'fast-check';
import { broken, clip, type Invariant, operation, sleep } from '../harness';
import { rootOf, ref, type ModelState } from '../model';
import { REMOTE_QUEUE } from '../remote';
import type { ModelSystem } from '../system';
import { answer, callFor } from './chain';

/** The remote chains, each with the root of the sequence whose delegation started it (its A2A context). */
async function remoteChains(
  system: ModelSystem,
  m: ModelState,
): Promise<{ id: string; root?: string; status: string }[]> {
  const found: { id: string; root?: string; status: string }[] = [];
  for await (const wf of system.client.workflow.list({ query: `TaskQueue = "${REMOTE_QUEUE}"` })) {
    const context = /^a2a:(.+):[0-9a-f-]{36}$/.exec(wf.workflowId)?.[1];
    if (context?.startsWith(m.tag))
      found.push({ id: wf.workflowId, root: rootOf(m, context)?.id, status: wf.status.name });
  }
  return found;
}

/** The delegations to ledger the harness answered, by root. */
function delegations(m: ModelState): Map<string, number> {
  const n = new Map<string, number>();
  for (const a of m.answers)
    for (const c of a.answer.toolCalls ?? [])
      if (c.name === 'delegate' && c.arguments.to === 'ledger') n.set(a.root, (n.get(a.root) ?? 0) + 1);
  return n;
}

const offersLedger = (m: ModelState, n: number) => {
  const call = callFor(m, n, 'delegate');
  return call?.tools.find((t) => t.name === 'delegate')?.targets?.includes('ledger') ? call : undefined;
};

export const remoteOperations = [
  operation({
    name: 'answer_remote_delegate',
    group: 'protocols',
    weight: 1,
    params: fc.record({
      call: fc.nat(),
      fault: fc.constantFrom<'none' | 'remote' | 'worker' | 'both'>('none', 'remote', 'worker', 'both'),
      downMs: fc.integer({ min: 200, max: 1_000 }),
    }),
    applies: (m, p) => offersLedger(m, p.call) !== undefined,
    async run(h, p) {
      const remote = h.system.remote;
      const call = offersLedger(h.model, p.call)!;
      const before = (await remoteChains(h.system, h.model)).length;
      answer(h, call, {
        toolCalls: [
          {
            id: ref(h.model, 'tc'),
            name: 'delegate',
            arguments: { to: 'ledger', task: `settle ${ref(h.model, 't')}`, reason: 'the ledger team keeps the books' },
          },
        ],
      });
      if (p.fault === 'none') return;
      // In the middle of the remote task: it started there, and ledger's answer takes 1.5 s.
      const deadline = Date.now() + 30_000;
      while ((await remoteChains(h.system, h.model)).length === before) {
        if (Date.now() > deadline)
          return broken(
            h,
            'remote-once',
            `the delegation of ${call.workflowId} to ledger started no remote task within 30 s`,
          );
        await sleep(100);
      }
      if (p.fault === 'worker' || p.fault === 'both')
        for (const slot of h.system.hosts.running(call.workflowId, 'callRemoteAgent')) h.system.kill(slot);
      if (p.fault === 'remote' || p.fault === 'both') {
        await remote.down();
        await sleep(p.downMs);
        await remote.start();
      }
    },
  }),
];

export const remoteInvariants: Invariant[] = [
  {
    // A delegation starts its remote task once, whatever was killed meanwhile; every remote task ends.
    name: 'remote-once',
    when: 'end',
    async check(h) {
      const asked = delegations(h.model);
      if (asked.size === 0) return;
      let chains = await remoteChains(h.system, h.model);
      for (const deadline = Date.now() + 60_000; chains.some((c) => c.status === 'RUNNING') && Date.now() < deadline;) {
        await sleep(500);
        chains = await remoteChains(h.system, h.model);
      }
      const running = chains.filter((c) => c.status === 'RUNNING');
      if (running.length > 0)
        broken(
          h,
          'remote-once',
          `remote tasks still running a minute after the sequence ended: ${clip(running.map((c) => c.id))}`,
        );
      const started = new Map<string, number>();
      for (const c of chains) started.set(c.root ?? '?', (started.get(c.root ?? '?') ?? 0) + 1);
      for (const [root, n] of started) {
        if (n > (asked.get(root) ?? 0))
          broken(
            h,
            'remote-once',
            `${root}: ${n} remote tasks for ${asked.get(root) ?? 0} delegations to ledger: ${clip(
              chains.filter((c) => (c.root ?? '?') === root).map((c) => c.id),
              400,
            )}`,
          );
      }
    },
  },
];
