/**
 * Deploys: team v2 (a changed policy, a tool with new parameters) comes while chains and
 * conversations run on v1 — beside a draining v1 (Worker Deployments, the versioned lane), side by
 * side with it on one task queue, or with v1 gone, stranding the chains whose next step needs v1
 * (they fail with `TeamMismatchError` and are migrated by `replay --on-current-team`).
 */
import fc from 'fast-check';
import { operation } from '../harness';
import type { DeployMode } from '../model';
import { sideBySideRefusal } from './chain';

export const deployOperations = [
  operation({
    name: 'redeploy',
    group: 'deploy',
    weight: 2,
    params: fc.record({ mode: fc.constantFrom<DeployMode>('drain', 'side_by_side', 'v1_gone') }),
    applies: (m, p) => m.version === 'v1' && (m.lane === 'versioned') === (p.mode === 'drain'),
    async run(h, p) {
      const m = h.model;
      await h.system.redeploy(m.lane, p.mode);
      m.version = 'v2';
      m.deployed = p.mode;
      // With v1 gone, a chain's step that needs v1 waits teamMismatchTimeout for it and fails, typed and
      // told; a conversation's turn waits for a migration, its callers told at once (operations/migrate.ts).
      if (p.mode === 'v1_gone')
        for (const r of m.roots)
          if (r.startedOn === 'v1') r.provoked.add(r.kind === 'chain' ? 'TeamMismatchError' : 'TurnStrandedError');
      // Side by side on one queue, a step may land on the worker of the other team (or on v1, stale
      // once v2 registered, for a new root's team) again and again: with the harness's seconds-long
      // teamMismatchTimeout a chain may run out of it, and a conversation's turn be stranded, typed and told.
      if (p.mode === 'side_by_side') for (const r of m.roots) r.provoked.add(sideBySideRefusal(r.kind));
    },
  }),
];
