/**
 * What operators do to running and failed chains: override options (and overrides the run must
 * refuse), steer and interrupt a chain or a conversation's running turn, and replay a failed chain
 * (with overrides, onto the current team, through the library or the real `baton replay`).
 */
import fc from 'fast-check';
import type { RunOptions } from '../../../src';
import { ENTRY_SOURCE } from '../../../src/common/authority/policy';
import { broken, cliTurn, errorText, operation } from '../harness';
import { openRoots, pick, rootOf, type ModelState, type RootModel } from '../model';

/** Roots with a model call under way in their tree: what steering and interrupts act on. */
function running(m: ModelState): RootModel[] {
  return openRoots(m).filter((r) => m.calls.some((c) => rootOf(m, c.workflowId) === r));
}

/** Failed chains a replay may continue: their failure a typed one the sequence caused. */
function replayable(m: ModelState): RootModel[] {
  return m.roots.filter(
    (r) =>
      r.kind === 'chain' &&
      r.status === 'failed' &&
      r.failure !== undefined &&
      r.provoked.has(r.failure) &&
      r.replays < 3,
  );
}

/** Whether a person rejected the chain's entry at its first agent (the harness's own decision on it). */
function entryRejected(root: RootModel): boolean {
  return root.decided.some(
    (d) => d.workflowId === root.id && d.outcome === 'rejected' && d.subject.includes(` ${ENTRY_SOURCE}→`),
  );
}

export const controlOperations = [
  operation({
    name: 'override',
    group: 'controls',
    weight: 2,
    params: fc.record({ chain: fc.nat(), maxHandoffs: fc.integer({ min: 0, max: 4 }), bogus: fc.boolean() }),
    applies: (m) => openRoots(m, 'chain').length > 0,
    async run(h, p) {
      const root = pick(openRoots(h.model, 'chain'), p.chain)!;
      if (p.bogus) {
        // An agent the team lacks: the run refuses it (on the record) and goes on as it was.
        await h.baton
          .override(root.id, { models: { ghost: { provider: 'puppet', model: 'ghost' } } })
          .catch((err: unknown) =>
            broken(h, 'override', `an override of ${root.id} failed to send: ${errorText(err)}`),
          );
        return;
      }
      await h.baton.override(root.id, { options: { maxHandoffs: p.maxHandoffs } });
      // A raise over what the chain runs under is a loosening, which the run refuses unsigned.
      if (p.maxHandoffs <= (root.options.maxHandoffs ?? 10))
        root.options = { ...root.options, maxHandoffs: p.maxHandoffs };
      root.provoked.add('MaxHandoffsExceededError');
    },
  }),
  operation({
    name: 'steer',
    group: 'controls',
    weight: 3,
    params: fc.record({ root: fc.nat(), interrupt: fc.boolean() }),
    applies: (m) => running(m).length > 0,
    async run(h, p) {
      const root = pick(running(h.model), p.root)!;
      const text = `${p.interrupt ? 'Stop' : 'Also'}: mind the budget (${root.id})`;
      try {
        await (p.interrupt
          ? h.baton.interrupt(root.id, text, { by: 'ops' })
          : h.baton.steer(root.id, text, { by: 'ops' }));
      } catch (err) {
        // A turn that ended meanwhile, or too many waiting messages, is refused; that is told, not lost.
        if ((err as Error).name !== 'SteeringRefusedError')
          broken(
            h,
            'steering-answered',
            `${p.interrupt ? 'interrupting' : 'steering'} ${root.id} failed: ${errorText(err)}`,
          );
      }
    },
  }),
  operation({
    name: 'replay',
    group: 'controls',
    weight: 4,
    params: fc.record({ chain: fc.nat(), overrides: fc.boolean() }),
    applies: (m) => replayable(m).length > 0,
    async run(h, p) {
      const root = pick(replayable(h.model), p.chain)!;
      if ((root.failure === 'GatedEntryError' || root.failure === 'LooseningRefusedError') && p.overrides) {
        // Refused at its entry (its agent, or start options looser than the team's), it never asked the
        // model: a replay with overrides (a new run from the rebuilt state) is refused, saying to start it
        // again; one without resets it to its entry check.
        const refused = await h.baton
          .replay(root.id, {
            overrides: { options: { maxHandoffs: (root.options.maxHandoffs ?? 10) + 3 } },
            reason: 'model harness',
          })
          .then(
            () => undefined,
            (err: unknown) => errorText(err),
          );
        if (!refused?.includes('before its first model turn'))
          broken(
            h,
            'replay',
            `replaying ${root.id}, refused at its entry, ${refused ? `was refused without saying why: ${refused}` : 'was accepted'}`,
          );
        root.replays = 3;
        return;
      }
      if (root.failure === 'GatedEntryError' && entryRejected(root)) {
        // Its entry rejected by a person: a reset would put the entry to people again and set the
        // rejection aside (its deadline could then let the chain in), so the replay is refused.
        const refused = await h.baton.replay(root.id, { reason: 'model harness' }).then(
          () => undefined,
          (err: unknown) => errorText(err),
        );
        if (!refused?.includes('rejected its entry'))
          broken(
            h,
            'replay',
            `replaying ${root.id}, its entry rejected by a person, ${refused ? `was refused without saying why: ${refused}` : 'was accepted'}`,
          );
        root.replays = 3;
        return;
      }
      const onCurrentTeam = root.failure === 'TeamMismatchError';
      // A replay does not ask the model again for what it answered: the options that failed it change.
      const raise =
        p.overrides || root.failure === 'MaxHandoffsExceededError' ? (root.options.maxHandoffs ?? 10) + 3 : undefined;
      const options: RunOptions = {
        ...(raise !== undefined ? { maxHandoffs: raise } : {}),
        ...(root.failure === 'HandoffTargetNotFoundError' ? { onInvalidHandoff: 'retry' as const } : {}),
        ...(root.failure === 'HandoffLoopDetectedError' ? { loopWindow: 0 } : {}),
      };
      const overrides = Object.keys(options).length > 0 ? { options } : undefined;
      try {
        root.replayedRuns.push((await h.system.client.workflow.getHandle(root.id).describe()).runId);
        // The command line sets limits only.
        if (!('onInvalidHandoff' in options) && !('loopWindow' in options) && cliTurn(h)) {
          const args = [
            'replay',
            root.id,
            '--task-queue',
            h.model.taskQueue,
            ...(raise !== undefined ? ['--max-handoffs', String(raise)] : []),
            ...(onCurrentTeam ? ['--on-current-team'] : []),
          ];
          await h.system.cliUntil(args, /continues from/);
        } else {
          await h.baton.replay(root.id, {
            ...(overrides ? { overrides } : {}),
            ...(onCurrentTeam ? { onCurrentTeam } : {}),
            reason: 'model harness',
          });
        }
      } catch (err) {
        return broken(h, 'replay', `replaying ${root.id} (failed with ${root.failure}) failed: ${errorText(err)}`);
      }
      root.options = { ...root.options, ...options };
      Object.assign(root, {
        status: 'open',
        failure: undefined,
        failureMessage: undefined,
        judged: false,
        replays: root.replays + 1,
      });
    },
  }),
];
