/** `baton chat`: its arguments, the connection and the worker it may serve; the chat itself is a {@link ChatSession}. */
import { Baton } from '../client/baton';
import { DEFAULT_TASK_QUEUE } from '../common/messages';
import { CONVERSATION_OPTIONS } from '../common/conversationOptions';
import { parse, runOptionNumber, UsageError } from './args';
import { COMMANDS_HELP } from './chatLines';
import { ChatSession } from './chatSession';
import { connect } from './connect';
import { type Command, type CommandContext, Interrupted } from './context';
import { warnWhenNoWorker } from './pollers';
import { untilDone } from './serve';
import { unstreamedNote } from './streamsNote';
import { loadTeamModule } from './team';
import { PRIORITY_FLAGS, priorityFromFlags, priorityHelp } from './priority';

/** `baton chat <agent>`: a conversation with a team in the terminal, resumable by id. */
export const chatCommand: Command = {
  synopsis:
    'baton chat <agent> [--team <module>] [--id <conversationId>] [--as <approver>] [--idle-timeout <duration>]\n           [--max-handoffs N] [--priority N] [--fairness-key <key>] [--fairness-weight W] [--task-queue baton]',
  summary:
    'talk with a team: each line is a message, answered by the active agent; handoffs and approvals show as they happen',
  help: `Arguments:
  <agent>                    the agent that answers first; after a handoff, its target answers

Options:
  --team <module>            also serve the team in this process (a module exporting \`team\`)
  --id <conversationId>      go on with this conversation (it prints its turns so far); default a new one
  --as <approver>            who decides approvals from this chat (default $USER)
  --idle-timeout <duration>  end a new conversation after this long without a message (default 24 hours)
  --max-handoffs N           handoffs allowed per message (default 10)
${priorityHelp(29)}
  --task-queue <name>        task queue of the workers (default baton)

In the chat:
${COMMANDS_HELP}

Messages typed while one is answered wait their turn and are answered in order. A handoff waiting
for approval is shown with how to decide it, here or from any shell (baton approve). Leaving does
not end the conversation: \`baton chat <agent> --id <id>\` goes on with it, from any machine.`,
  reportsChainFailures: true,
  run,
};

async function run(argv: string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, {
    team: { type: 'string' },
    id: { type: 'string' },
    as: { type: 'string' },
    'idle-timeout': { type: 'string' },
    'max-handoffs': { type: 'string' },
    'task-queue': { type: 'string', default: DEFAULT_TASK_QUEUE },
    ...PRIORITY_FLAGS,
  });
  const [agent, ...rest] = positionals;
  if (!agent || rest.length > 0) throw new UsageError('expected exactly <agent>');
  if (values.id !== undefined && values.id.trim() === '')
    throw new UsageError('--id must name a conversation; leave it out to start a new one');
  if (values.as !== undefined && values.as.trim() === '')
    throw new UsageError('--as must name who decides approvals from this chat');
  const idle = values['idle-timeout'];
  const problem =
    idle !== undefined
      ? CONVERSATION_OPTIONS.idleTimeout.check(/^\d+$/.test(idle) ? Number(idle) : idle, '--idle-timeout')[0]
      : undefined;
  if (problem) throw new UsageError(problem);
  const maxHandoffs = runOptionNumber('max-handoffs', 'maxHandoffs', values['max-handoffs']);
  const priority = priorityFromFlags(values);
  const mod = values.team ? loadTeamModule(values.team) : undefined;
  if (mod && !mod.team.get(agent))
    throw new UsageError(`agent "${agent}" is not in the team (agents: ${mod.team.ids.join(', ')})`);
  const taskQueue = values['task-queue'];
  const { client, native } = await connect();
  const chat = new Baton({ client, taskQueue }).conversation(agent, {
    ...(values.id ? { id: values.id } : {}),
    ...(idle !== undefined ? { conversation: { idleTimeout: /^\d+$/.test(idle) ? Number(idle) : idle } } : {}),
    ...(maxHandoffs !== undefined || priority
      ? { options: { ...(maxHandoffs !== undefined ? { maxHandoffs } : {}), ...(priority ? { priority } : {}) } }
      : {}),
  });
  const resume = `resume with: npx baton chat ${agent} --id ${chat.id}${values.team ? ` --team ${values.team}` : ''}`;
  const session = new ChatSession(chat, new Baton({ client, taskQueue }), values.as ?? process.env.USER ?? 'cli', ctx);
  if (!mod) {
    warnWhenNoWorker(client, taskQueue, chat.id, ctx.err);
    session.textNote = unstreamedNote();
  }
  try {
    return await untilDone(() => session.run(resume), {
      team: mod,
      connection: native,
      taskQueue,
      interrupted: ctx.interrupted,
    });
  } catch (err) {
    session.close();
    if (err instanceof Interrupted) ctx.err(`left the conversation; it stays open. ${resume}`);
    throw err;
  }
}
