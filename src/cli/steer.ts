import { Baton } from '../client/baton';
import { DEFAULT_TASK_QUEUE } from '../common/messages';
import { parse, UsageError } from './args';
import { connect } from './connect';
import type { Command } from './context';
import { readInput } from './input';

/** `baton steer <workflowId> <text> --as <name> [--interrupt]`: a user message for a running chain or conversation turn. */
export const steerCommand: Command = {
  synopsis: 'baton steer <workflowId> (<text> | - | --input-file <path>) --as <name> [--interrupt]',
  summary: "add a message to a running chain (or a conversation's running turn), applied at its next step",
  help: `Arguments:
  <workflowId>           the chain or conversation
  <text>                 the message (quote it); - reads it from stdin

Options:
  --as <name>            who sends it (required): recorded with the message in the chain's history
  --interrupt            stop the answer the model is writing now and ask again with the message,
                         instead of waiting for the answer to end
  --input-file <path>    read the message from a file (- for stdin)

The message joins the current agent's conversation as a user message at the chain's next step:
before its next model call, or, when the model is answering, once the answer is written (the model is
then asked again rather than the chain ending). A chain that has ended, one that started before
chains took steering messages, a conversation with no message being answered, and a message over
256 KB are refused, saying why. Exit codes: 0 taken, 1 refused, 2 usage.`,
  async run(argv, ctx) {
    const { values, positionals } = parse(argv, {
      as: { type: 'string' },
      interrupt: { type: 'boolean', default: false },
      'input-file': { type: 'string' },
    });
    const [workflowId, textArg, ...rest] = positionals;
    if (!workflowId) throw new UsageError('expected <workflowId> and the message');
    if (rest.length > 0)
      throw new UsageError('expected exactly <workflowId> <text>: quote the message, or pass - / --input-file <path>');
    if (!values.as || values.as.trim() === '') throw new UsageError('--as must name who sends the message');
    const text = await readInput({ arg: textArg, file: values['input-file'] }, ctx.interrupted, ctx.err);
    const { client } = await connect();
    const baton = new Baton({ client, taskQueue: DEFAULT_TASK_QUEUE });
    const receipt = values.interrupt
      ? await baton.interrupt(workflowId, text, { by: values.as })
      : await baton.steer(workflowId, text, { by: values.as });
    ctx.out(
      receipt.interrupted
        ? `interrupted ${workflowId}: the model is asked again with the message (steer ${receipt.steerId})`
        : `steered ${workflowId}: the message is applied at the chain's next step (steer ${receipt.steerId}, ${receipt.waiting} waiting)`,
    );
    return 0;
  },
};
