import { Baton } from '../client/baton';
import { formatTimeline, toMermaid } from '../audit/format';
import { parse, UsageError } from './args';
import { connect } from './connect';
import type { Command } from './context';

/** `baton audit <workflowId> [--json | --mermaid]`: the chain from its history. */
export const auditCommand: Command = {
  synopsis: 'baton audit <workflowId> [--json | --mermaid]',
  summary: 'the chain rebuilt from its workflow history',
  help: `Options:
  --json        the audit document (schema baton.audit/v1): every model turn, tool call, handoff,
                approval decision and failure
  --mermaid     the handoff flow as a Mermaid diagram

Without an option, a readable timeline. Reads the latest run of <workflowId>, across continue-as-new.`,
  async run(argv, { out }) {
    const { values, positionals } = parse(argv, { json: { type: 'boolean', default: false }, mermaid: { type: 'boolean', default: false } });
    const [workflowId, ...rest] = positionals;
    if (!workflowId || rest.length > 0) throw new UsageError('expected exactly <workflowId>');
    if (values.json && values.mermaid) throw new UsageError('choose one of --json and --mermaid');
    const { client } = await connect();
    const chain = await new Baton({ client }).audit(workflowId);
    out(values.json ? JSON.stringify(chain, null, 2) : values.mermaid ? toMermaid(chain) : formatTimeline(chain));
    return 0;
  },
};
