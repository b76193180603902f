/**
 * `baton ask` and `baton answer`: request-info on a waiting approval. An approver asks a question
 * instead of deciding; the requester answers; the approval goes on waiting with the answer attached.
 */
import { Baton } from '../client/baton';
import type { ApprovalQuestion } from '../common/approvalQuestions';
import { displayText } from '../common/display';
import { parse, UsageError } from './args';
import { connect } from './connect';
import type { Command } from './context';

/** `baton ask <workflowId> <approvalId> <question> --as <approver>`. */
export const askCommand: Command = questionCommand('ask');

/** `baton answer <workflowId> <approvalId> <answer> --as <answerer>`. */
export const answerCommand: Command = questionCommand('answer');

function questionCommand(kind: 'ask' | 'answer'): Command {
  const ask = kind === 'ask';
  const text = ask ? '<question>' : '<answer>';
  return {
    synopsis: `baton ${kind} <workflowId> <approvalId> ${text} --as <${ask ? 'approver' : 'answerer'}> [--json]`,
    summary: ask
      ? 'ask a question about a waiting approval instead of deciding it'
      : 'answer the open question about a waiting approval',
    help: `Options:
  --as <name>   ${ask ? "who asks (required; one of the approval's approvers, when it names any)" : 'who answers (required): the requester, or whoever speaks for them'}
  --json        print the question${ask ? '' : ' and its answer'} as JSON

${
  ask
    ? `The approval keeps waiting, now for the answer too (\`baton answer\`); \`baton pending\` shows the
question. One question is open at a time, at most 5 per approval, each at most 2000 characters.`
    : `The approval keeps waiting for a decision, the answer attached: \`baton pending\` shows it, the
decision records it, and a rejection gives the agent the questions and answers as data.`
}
A ${kind === 'ask' ? 'question' : 'answer'} that cannot apply (nothing waits under that id${ask ? ', not an approver, a question already open' : ', no question open'}, empty) is
refused with QuestionRefusedError and exit code 1.`,
    async run(argv, { out }) {
      const { values, positionals } = parse(argv, {
        as: { type: 'string' },
        json: { type: 'boolean', default: false },
      });
      const [workflowId, approvalId, said, ...rest] = positionals;
      if (!workflowId || !approvalId || said === undefined || rest.length > 0)
        throw new UsageError(`expected <workflowId> <approvalId> ${text} (quote the text)`);
      if (said.trim() === '') throw new UsageError(`${text} must not be empty`);
      if (!values.as || values.as.trim() === '')
        throw new UsageError(`--as <name> is required: who ${ask ? 'asks' : 'answers'}`);
      const { client } = await connect();
      const baton = new Baton({ client });
      const q = ask
        ? await baton.ask(workflowId, { approvalId, approver: values.as, question: said })
        : await baton.answer(workflowId, { approvalId, answerer: values.as, answer: said });
      out(values.json ? JSON.stringify(q, null, 2) : formatQuestion(approvalId, q));
      return 0;
    },
  };
}

/** `approval a1: alice asked "why 4?"`, with its answer once given. */
export function formatQuestion(approvalId: string, q: ApprovalQuestion): string {
  const asked = `approval ${approvalId}: ${q.askedBy} asked ${JSON.stringify(q.question)}`;
  return displayText(
    q.answer === undefined
      ? `${asked}; it waits for the answer`
      : `${asked}; ${q.answeredBy ?? 'someone'} answered ${JSON.stringify(q.answer)}`,
  );
}
