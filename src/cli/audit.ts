import { Baton } from '../client/baton';
import { formatTimeline, toMermaid } from '../audit/format';
import { parse, UsageError } from './args';
import { connect } from './connect';
import type { Print } from './commands';

/** `baton audit <workflowId> [--json | --mermaid]`: the chain from its history. */
export async function audit(argv: string[], print: Print): Promise<number> {
  const { values, positionals } = parse(argv, { json: { type: 'boolean', default: false }, mermaid: { type: 'boolean', default: false } });
  const [workflowId, ...rest] = positionals;
  if (!workflowId || rest.length > 0) throw new UsageError('expected exactly <workflowId>');
  if (values.json && values.mermaid) throw new UsageError('choose one of --json and --mermaid');
  const { client } = await connect();
  const chain = await new Baton({ client }).audit(workflowId);
  print(values.json ? JSON.stringify(chain, null, 2) : values.mermaid ? toMermaid(chain) : formatTimeline(chain));
  return 0;
}
