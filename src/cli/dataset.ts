import { appendToDataset, lineFromChain } from '../eval/dataset';
import { parse, UsageError } from './args';
import { connect } from './connect';
import type { Command } from './context';

/** `baton dataset add <chainId> --good|--bad --dataset <file>`: save a recorded chain into a dataset. */
export const datasetCommand: Command = {
  synopsis: 'baton dataset add <workflowId> (--good | --bad) --dataset <file.jsonl>',
  summary: 'save a recorded chain into a dataset, marked good or bad, for baton eval --dataset',
  help: `Appends one line to the dataset: the chain's request (agent, input, options, context), the chain's id,
your verdict, and what the case expects of a candidate team —
  --good   the route and the final agent the chain took (or, if it failed, that it fails)
  --bad    not this chain: a candidate passes when its route or answer differs from it
A chain already in the dataset is refused. Edit the line to expect more (expect.output.regex,
expect.output.jsonSchema, expect.output.zod, expect.judge.rubric): docs/evaluation.md.`,
  async run(argv, { out }) {
    const { values, positionals } = parse(argv, {
      good: { type: 'boolean', default: false },
      bad: { type: 'boolean', default: false },
      dataset: { type: 'string' },
    });
    const [action, chainId, ...rest] = positionals;
    if (action !== 'add')
      throw new UsageError(
        `expected add <workflowId>, got ${action === undefined ? 'nothing' : JSON.stringify(action)}`,
      );
    if (!chainId || rest.length > 0) throw new UsageError('expected exactly one <workflowId>');
    if (values.good === values.bad) throw new UsageError('mark the chain --good or --bad (one of them)');
    if (!values.dataset) throw new UsageError('--dataset <file.jsonl> is required: the dataset to add the chain to');
    const { client } = await connect();
    const line = await lineFromChain(client, chainId, values.good ? 'good' : 'bad');
    const { line: at } = appendToDataset(values.dataset, line);
    out(
      `saved ${chainId} to ${values.dataset}:${at} as ${line.verdict} (${line.verdict === 'good' ? `expects ${line.expect?.route?.join(' → ') ?? ''}` : 'expects a different route or answer'})`,
    );
    return 0;
  },
};
