/**
 * Conversations stranded by a redeploy without their team: a turn whose next step needs team v1
 * (a `lookup` with v1's parameters) after v1's workers went away waits for such a worker, and its
 * callers are told at once with `TurnStrandedError`. The operator moves the conversation onto the
 * current team with `chat.migrate()` or the real `baton replay --on-current-team <conversationId>`;
 * between turns a migration makes the next turn take the current team. The messages whose callers
 * were told are then sent again with their keys, and must be answered once, by the turn they were.
 */
import fc from 'fast-check';
import { broken, cliTurn, errorText, operation, sleep, type Harness } from '../harness';
import { openRoots, pick, type ModelState, type RootModel } from '../model';
import { chatOf, failed } from './conversation';

/** Open conversations that began on team v1 after v1 was deployed over (unversioned workers: no Worker Deployment pins them). */
export function movable(m: ModelState): RootModel[] {
  return m.lane === 'unversioned' && m.version === 'v2'
    ? openRoots(m, 'conversation').filter(
        (r) => r.startedOn === 'v1' && !r.ending && !r.migrating && !r.migrations?.length,
      )
    : [];
}

/** Conversations with a message whose caller was told its turn was stranded and that was not sent again. */
export function stranded(m: ModelState): RootModel[] {
  return openRoots(m, 'conversation').filter((r) => !r.migrating && r.messages.some((x) => x.stranded && !x.resent));
}

/**
 * Move `root` onto the current team: by the real CLI (a stranded turn moves at once), or by the
 * library, whose answer may wait for the turn under way to end (the harness answers it meanwhile).
 * Once moved, its stranded messages are sent again.
 */
export function migrate(h: Harness, root: RootModel, cli: boolean): void {
  const at = Date.now();
  const moved = async () => {
    if (!cli) return { ...(await chatOf(h, root).migrate()), at };
    const out = await h.system.cli(['replay', root.id, '--on-current-team', '--task-queue', h.model.taskQueue]);
    const said = /moved from team (\S+) to (\S+?)(?:: turn (\d+) goes on| before|$)/m.exec(out.stdout);
    if (out.code !== 0 || !said)
      throw new Error(`baton replay --on-current-team ${root.id} exited ${out.code}: ${out.stdout}${out.stderr}`);
    return { from: said[1]!, to: said[2]!, ...(said[3] ? { turn: Number(said[3]) } : {}), at };
  };
  root.migrating = moved().then(
    (m) => {
      h.options.log?.(
        `  ${root.id} moved from ${m.from} to ${m.to}${m.turn !== undefined ? `, turn ${m.turn} going on` : ' before its next turn'}${cli ? ' (baton replay --on-current-team)' : ''}`,
      );
      (root.migrations ??= []).push(m);
      root.migrating = undefined;
      resend(h, root);
    },
    (err: unknown) => {
      root.migrating = undefined;
      // Ended or ending meanwhile (the harness ends conversations at the close), or no worker of the current
      // team took its snapshot in time (a kill, a slow start): refused, told, nothing lost.
      if (!['ConversationEndedError', 'TeamMismatchError'].includes((err as Error).name))
        broken(
          h,
          'chat-migrate',
          `migrating ${root.id} onto the current team${cli ? ' (baton replay --on-current-team)' : ''} failed: ${errorText(err)}`,
        );
    },
  );
}

/** Send again, with its key, every message of `root` whose caller was told its turn was stranded. */
function resend(h: Harness, root: RootModel): void {
  const chat = chatOf(h, root);
  for (const msg of root.messages.filter((x) => x.stranded && !x.resent)) {
    msg.resent = true;
    const told = msg.error;
    // In flight again: the invariants judge the answer to the second send.
    Object.assign(msg, { error: undefined, errorMessage: undefined, judged: false });
    msg.done = chat.send(msg.text, { idempotencyKey: msg.key }).then(
      (reply) => void (msg.reply = reply),
      (err: unknown) => failed(msg, err),
    );
    if (!told)
      broken(h, 'stranded-told-once', `${root.id}: message ${msg.n} was sent again without having been answered`);
  }
}

export const migrateOperations = [
  operation({
    name: 'chat_migrate',
    group: 'deploy',
    weight: 4,
    params: fc.record({ chat: fc.nat(), stranded: fc.boolean(), cli: fc.boolean() }),
    applies: (m) => movable(m).length > 0,
    async run(h, p) {
      // A stranded one first when asked and there is one; else any that still runs on v1, between turns or not.
      const strandedOnes = stranded(h.model);
      const root = (p.stranded ? pick(strandedOnes, p.chat) : undefined) ?? pick(movable(h.model), p.chat)!;
      // The command line waits for the move: only for a turn that moves at once.
      migrate(h, root, strandedOnes.includes(root) && p.cli && cliTurn(h));
      await Promise.race([root.migrating, sleep(5_000)]);
    },
  }),
];
