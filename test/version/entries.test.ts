/**
 * The redeploy drill's chains start where its team lets them: a chain of each kind starts at once,
 * refunds included (gated: a handoff into it needs approval), in both versions of the team; a
 * start at another gated agent still waits for its approval, and an agent not named is no entry.
 */
import { describe, expect, it } from 'vitest';
import { CHAIN_KINDS, ENTRIES, redeployTeam } from '../../drill/redeploy/team';
import { judgeEntry } from '../../src/common/authority/entry';

describe("the redeploy drill team's entries", () => {
  for (const v of ['v1', 'v2'] as const) {
    it(`${v}: every kind of chain starts at an entry, gated refunds too; sales waits for its approval, billing is no entry`, () => {
      const team = redeployTeam(v).spec();
      expect(team.agents.refunds!.approval).toMatchObject({ required: true });
      for (const { agent } of Object.values(CHAIN_KINDS))
        expect(judgeEntry(team, [], agent)).toEqual({ kind: 'enter' });
      if (v === 'v1')
        expect(judgeEntry(team, [], 'sales')).toMatchObject({ kind: 'approve', policy: { required: true } });
      expect(judgeEntry(team, [], 'billing')).toMatchObject({ kind: 'refuse', entries: [...ENTRIES] });
    });
  }
});
