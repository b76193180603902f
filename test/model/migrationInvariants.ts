/**
 * The invariants of conversations stranded by a deploy and moved onto the current team, and of
 * messages sent more than once (again after a migration, or retried over HTTP): a stranded turn's
 * caller is told at once and once; a migrated turn goes on on the current team; no message is
 * answered twice.
 */
import { broken, clip, sleep, type Harness, type Invariant } from './harness';
import type { RootModel, SentMessage } from './model';

/** A message of `root` still waiting for its first answer (not sent again). */
function pendingFirst(root: RootModel, key: string): SentMessage | undefined {
  return root.messages.find((x) => x.key === key && !x.reply && !x.error && !x.resent);
}

async function viewOf(h: Harness, root: RootModel) {
  return h.baton
    .conversation(root.agent, { id: root.id })
    .status()
    .catch(() => undefined);
}

export const migrationInvariants: Invariant[] = [
  {
    // A turn stranded by a deploy answers its caller at once (TurnStrandedError), not after
    // teamMismatchTimeout or never; and only once: sent again after a migration, it is answered.
    name: 'stranded-told',
    when: 'step',
    async check(h) {
      for (const root of h.model.roots.filter((r) => r.kind === 'conversation' && r.status === 'open')) {
        for (const msg of root.messages)
          if ((msg.stranded?.told ?? 0) > 1)
            broken(
              h,
              'stranded-told',
              `${root.id}: message ${msg.n} was told ${msg.stranded!.told} times that its turn ${msg.stranded!.strandedTurn} is stranded, though it was sent again only after a migration`,
            );
        if (h.model.deployed !== 'v1_gone' || root.startedOn !== 'v1') continue;
        const view = await viewOf(h, root);
        const msg =
          view?.status === 'waiting_for_worker' && view.current
            ? pendingFirst(root, view.current.idempotencyKey)
            : undefined;
        if (!msg) continue;
        await Promise.race([msg.done, sleep(5_000)]);
        if (!msg.reply && !msg.error)
          broken(
            h,
            'stranded-told',
            `${root.id}: turn ${view!.current!.turn} waits for a worker of team ${view!.current!.stranded?.version ?? '?'}, and the caller of its message ${msg.n} has not been told`,
          );
      }
    },
  },
  {
    // A migrated conversation goes on on the current team: none of its turns waits for team v1 again,
    // and every effect after the move ran on a worker of the current team.
    name: 'resumed-on-current-team',
    when: 'step',
    async check(h) {
      for (const root of h.model.roots.filter((r) => r.status === 'open' && r.migrations?.length)) {
        const moved = root.migrations!.at(-1)!;
        const view = await viewOf(h, root);
        if (view?.status === 'waiting_for_worker' && view.current?.stranded?.version === moved.from)
          broken(
            h,
            'resumed-on-current-team',
            `${root.id} was moved from ${moved.from} to ${moved.to}, and its turn ${view.current.turn} still waits for a worker of ${moved.from}: ${clip(view.current.stranded)}`,
          );
        for (const e of h.effects) {
          if (e.workflowId.split('/')[0] === root.id && e.at > moved.at + 1_000 && e.version !== h.model.version)
            broken(
              h,
              'resumed-on-current-team',
              `${root.id}: ${e.tool} call ${e.toolCallId} ran on team ${e.version} after the conversation was moved to ${moved.to}`,
            );
        }
      }
    },
  },
  {
    // No message is answered twice: its conversation's history has one turn per idempotency key, the
    // turn each reply named; a message sent again (after a migration, or retried over HTTP) is that turn.
    name: 'answered-once',
    when: 'end',
    async check(h) {
      for (const root of h.model.roots.filter(
        (r) => r.kind === 'conversation' && !r.abandoned && r.messages.length > 0,
      )) {
        const audit = await h.baton
          .conversation(root.agent, { id: root.id })
          .audit()
          .catch(() => undefined);
        if (!audit) continue;
        const turnsByKey = new Map<string, number[]>();
        for (const t of audit.turns)
          turnsByKey.set(t.idempotencyKey, [...(turnsByKey.get(t.idempotencyKey) ?? []), t.turn]);
        for (const msg of root.messages) {
          const turns = turnsByKey.get(msg.key) ?? [];
          if (turns.length > 1)
            broken(
              h,
              'answered-once',
              `${root.id}: message ${msg.n} (${msg.key}${msg.http ? ', over HTTP' : ''}${msg.resent ? ', sent again after a migration' : ''}) ran as turns ${turns.join(', ')}`,
            );
          if (msg.reply && turns.length === 1 && msg.reply.turn !== turns[0])
            broken(
              h,
              'answered-once',
              `${root.id}: message ${msg.n} (${msg.key}) was answered as turn ${msg.reply.turn}; its history answered it in turn ${turns[0]}`,
            );
          if (msg.resent && msg.reply && msg.stranded && msg.reply.turn !== msg.stranded.turn)
            broken(
              h,
              'answered-once',
              `${root.id}: message ${msg.n}, told its turn ${msg.stranded.turn} was stranded, was answered as turn ${msg.reply.turn} once sent again`,
            );
          for (const k of msg.http?.keys ?? [])
            if (k !== msg.key)
              broken(
                h,
                'answered-once',
                `${root.id}: message ${msg.n} sent again over HTTP was answered under the key ${k}, not ${msg.key}`,
              );
        }
        for (const m of root.migrations ?? []) {
          if (!audit.teamChanges.some((c) => c.by === 'migration' && c.to === m.to))
            broken(
              h,
              'resumed-on-current-team',
              `${root.id}: moved from ${m.from} to ${m.to}, and its audit records no such migration: ${clip(audit.teamChanges)}`,
            );
        }
      }
    },
  },
];
