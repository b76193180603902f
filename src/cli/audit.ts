import fs from 'node:fs';
import { Baton } from '../client/baton';
import { auditConversation, formatConversation } from '../audit/conversation';
import { exportAudit } from '../audit/export';
import { formatTimeline, toMermaid } from '../audit/format';
import { verifyAuditExport } from '../audit/verifyExport';
import { isRecord } from '../common/check';
import { WorkflowType } from '../common/messages';
import { approverKeysCheck, type ApproverKey } from '../common/signatures/keys';
import { parse, UsageError } from './args';
import { connect } from './connect';
import { type Command, ExitCode } from './context';

/** `baton audit <workflowId> [--json | --mermaid | --export <file>]` and `baton audit --verify <file>`. */
export const auditCommand: Command = {
  synopsis: 'baton audit <workflowId> [--json | --mermaid | --export <file>] | baton audit --verify <file> [--keys <file>] [--head <digest>]',
  summary: 'the chain rebuilt from its workflow history; a verifiable export of it, and its check',
  help: `Options:
  --json             the audit document (schema baton.audit/v1): every model turn, tool call, handoff,
                     approval decision and failure
  --mermaid          the handoff flow as a Mermaid diagram
  --export <file>    write a self-contained, verifiable audit (schema baton.audit-export/v1): the events
                     of the chain and its specialists, each chained to the one before by a SHA-256
                     digest, each chain with the public keys it trusted; prints the head digest
  --verify <file>    check an export offline: its digest chain and every signed decision; names the
                     first event that fails and exits 1
  --keys <file>      with --verify: the approver keys you trust (a JSON list of {kid, approvers,
                     publicKey, …}, or {"approverKeys": [...]}); a signature by any other key fails
  --head <digest>    with --verify: the head digest you kept at export; another head fails

Without an option, a readable timeline. Reads the latest run of <workflowId>, across continue-as-new.
A conversation's id gives its turns: each message, its handoffs, approvals and answer (--json: the
baton.conversation-audit/v1 document).`,
  async run(argv, { out, err }) {
    const { values, positionals } = parse(argv, {
      json: { type: 'boolean', default: false },
      mermaid: { type: 'boolean', default: false },
      export: { type: 'string' },
      verify: { type: 'string' },
      keys: { type: 'string' },
      head: { type: 'string' },
    });
    if (values.verify !== undefined) {
      if (positionals.length > 0 || values.json || values.mermaid || values.export !== undefined) throw new UsageError('--verify <file> takes no workflow id and no other output option');
      return verify(values.verify, values.keys, values.head, out, err);
    }
    if (values.keys !== undefined || values.head !== undefined) throw new UsageError('--keys and --head go with --verify <file>');
    const [workflowId, ...rest] = positionals;
    if (!workflowId || rest.length > 0) throw new UsageError('expected exactly <workflowId>');
    if ([values.json, values.mermaid, values.export !== undefined].filter(Boolean).length > 1) throw new UsageError('choose one of --json, --mermaid and --export');
    const { client } = await connect();
    // A conversation is audited as its turns; a chain's options do not apply to it.
    if ((await client.workflow.getHandle(workflowId).describe()).type === WorkflowType.CONVERSATION) {
      if (values.mermaid || values.export !== undefined) {
        throw new UsageError(`${workflowId} is a conversation: --mermaid and --export take a chain; read the conversation with baton audit ${workflowId} (or --json), and a turn's chain in it by its own workflow id when it delegated`);
      }
      const audit = await auditConversation(client, workflowId);
      out(values.json ? JSON.stringify(audit, null, 2) : formatConversation(audit));
      return ExitCode.OK;
    }
    const chain = await new Baton({ client }).audit(workflowId);
    if (values.export !== undefined) {
      const doc = exportAudit(chain);
      fs.writeFileSync(values.export, `${JSON.stringify(doc, null, 2)}\n`);
      out(`exported ${doc.events.length} events of ${workflowId} to ${values.export}; head ${doc.head}`);
      return ExitCode.OK;
    }
    out(values.json ? JSON.stringify(chain, null, 2) : values.mermaid ? toMermaid(chain) : formatTimeline(chain));
    return ExitCode.OK;
  },
};

function verify(file: string, keysFile: string | undefined, head: string | undefined, out: (line: string) => void, err: (line: string) => void): number {
  const doc = readJson(file);
  const trustedKeys = keysFile !== undefined ? readKeys(keysFile) : undefined;
  const checked = verifyAuditExport(doc, { ...(trustedKeys ? { trustedKeys } : {}), ...(head !== undefined ? { head } : {}) });
  if (!checked.ok) {
    const f = checked.failure!;
    const where = f.seq < 0 ? 'the document' : f.seq >= checked.events && f.kind === undefined ? 'the head' : `event #${f.seq}${f.kind ? ` (${f.kind}${f.workflowId ? ` in chain ${f.workflowId}` : ''})` : ''}`;
    err(`not verified: ${where}: ${f.reason}`);
    if (checked.events > 0) err(`the ${checked.events} events before it verified`);
    return ExitCode.FAILURE;
  }
  const keys = checked.keys.length > 0 ? ` (keys ${checked.keys.join(', ')})` : '';
  const unchecked = checked.unchecked > 0 ? `; ${checked.unchecked} edited arguments redacted, checked by their signed digest only` : '';
  out(`verified: ${checked.events} events, ${checked.signed} signed decisions${keys}, ${checked.claimed} with a claimed approver${unchecked}`);
  out(`head ${checked.head}`);
  return ExitCode.OK;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file} is not JSON: ${(e as Error).message}`);
  }
}

function readKeys(file: string): ApproverKey[] {
  const value = readJson(file);
  const list = isRecord(value) && Array.isArray(value.approverKeys) ? value.approverKeys : value;
  const problems = approverKeysCheck(list, file);
  if (problems.length > 0) throw new UsageError(`--keys ${file}: ${problems.slice(0, 5).join('; ')}`);
  return list as ApproverKey[];
}
