import fs from 'node:fs';
import { Baton } from '../client/baton';
import { exportAudit, signAuditExport, type AuditExport } from '../audit/export';
import { auditRun } from '../audit/fetch';
import { formatTimeline, toMermaid } from '../audit/format';
import { verifyAuditExport } from '../audit/verifyExport';
import { verifyAgainstHistory } from '../audit/verifyHistory';
import { auditConversation } from '../audit/conversation';
import { formatConversation } from '../audit/conversationFormat';
import { WorkflowType } from '../common/messages';
import { parse, UsageError } from './args';
import { ARCHIVE_HELP, ARCHIVE_SYNOPSIS, auditArchive } from './auditArchive';
import { exportSigner, readApproverKeys, readJson, trustedExportKeys } from './auditKeys';
import { connect } from './connect';
import { type Command, ExitCode } from './context';

type Print = (line: string) => void;

/** `baton audit <workflowId> [--json | --mermaid | --export <file>]` and `baton audit --verify <file>`. */
export const auditCommand: Command = {
  synopsis: `baton audit <workflowId> [--json | --mermaid | --export <file> [--key <file> [--kid <id>] | --unsigned]] | baton audit --verify <file> [--export-keys <file>] [--accept-untrusted-head] [--keys <file>] [--head <digest>] [--against-history] | ${ARCHIVE_SYNOPSIS}`,
  summary: 'the chain rebuilt from its workflow history; a verifiable export of it, and its check',
  help: `Options:
  --json             the audit document (schema baton.audit/v1): every model turn, tool call, handoff,
                     approval decision and failure
  --mermaid          the handoff flow as a Mermaid diagram
  --export <file>    write a self-contained, verifiable audit (schema baton.audit-export/v2): the events
                     of the chain and its specialists, each chained to the one before by a SHA-256
                     digest, each chain with the public keys and tool policies it had; the head is
                     signed with --key <file> (PKCS#8 PEM or a JWK; --kid names its key id), else
                     BATON_AUDIT_KEY (BATON_AUDIT_KID), else the service's BATON_SERVICE_KEY
                     (BATON_SERVICE_KID); prints the head digest and the key
  --unsigned         with --export and no key: write the export with an unsigned head, which --verify
                     refuses unless told --accept-untrusted-head
  --verify <file>    check an export offline: its digest chain; that every decision comes after its
                     request, once, signed where its request required it, its signature valid; that
                     every tool call that needed approval ran after the decision that approved it;
                     recorded digests; and the head's signature by a key you trust. Names the first
                     problem and exits 1
  --export-keys <file>  with --verify: the keys you trust to sign export heads (a JSON list of {kid,
                     publicKey, notBefore?, notAfter?}; approver key entries fit), besides
                     BATON_AUDIT_KEYS=<file> and the public half of BATON_AUDIT_KEY / BATON_SERVICE_KEY
  --accept-untrusted-head  with --verify: check an export whose head is unsigned or signed by a key you
                     do not trust, saying so: such a document may have been rewritten whole
  --keys <file>      with --verify: the approver keys you trust (a JSON list of {kid, approvers,
                     publicKey, …}, or {"approverKeys": [...]}); a decision signed by any other key fails
  --head <digest>    with --verify: the head digest you kept at export; another head fails
  --against-history  with --verify: also read the chains' workflow histories (while they exist) and
                     check that each tool result and approval event shows what history recorded, and
                     that the export leaves none of them out

Without an option, a readable timeline. Reads the latest run of <workflowId>, across continue-as-new.
A conversation's id gives its turns: each message, its handoffs, approvals and answer (--json: the
baton.conversation-audit/v1 document); --export writes its history's export, as the archive keeps it.

${ARCHIVE_HELP}`,
  async run(argv, ctx) {
    if (argv.some((a) => a === '--archive' || a.startsWith('--archive='))) return auditArchive(argv, ctx);
    const { out, err } = ctx;
    const { values, positionals } = parse(argv, {
      json: { type: 'boolean', default: false },
      mermaid: { type: 'boolean', default: false },
      export: { type: 'string' },
      key: { type: 'string' },
      kid: { type: 'string' },
      unsigned: { type: 'boolean', default: false },
      verify: { type: 'string' },
      'export-keys': { type: 'string', multiple: true },
      'accept-untrusted-head': { type: 'boolean', default: false },
      keys: { type: 'string' },
      head: { type: 'string' },
      'against-history': { type: 'boolean', default: false },
    });
    const verifying =
      [values.keys, values.head, values['export-keys']].some((v) => v !== undefined) ||
      values['accept-untrusted-head'] ||
      values['against-history'];
    const exporting = values.key !== undefined || values.kid !== undefined || values.unsigned;
    if (values.verify !== undefined) {
      if (positionals.length > 0 || values.json || values.mermaid || values.export !== undefined || exporting)
        throw new UsageError('--verify <file> takes no workflow id and no other output option');
      return verify(values.verify, values, out, err);
    }
    if (verifying)
      throw new UsageError(
        '--export-keys, --accept-untrusted-head, --keys, --head and --against-history go with --verify <file>',
      );
    if (exporting && values.export === undefined)
      throw new UsageError('--key, --kid and --unsigned go with --export <file>');
    const [workflowId, ...rest] = positionals;
    if (!workflowId || rest.length > 0) throw new UsageError('expected exactly <workflowId>');
    if ([values.json, values.mermaid, values.export !== undefined].filter(Boolean).length > 1)
      throw new UsageError('choose one of --json, --mermaid and --export');
    const signing = values.export !== undefined ? exportSigner(values.key, values.kid) : undefined;
    if (values.export !== undefined && !signing && !values.unsigned) {
      throw new UsageError(
        "no key to sign the export's head: give --key <file> (or BATON_AUDIT_KEY, or the service's BATON_SERVICE_KEY), or --unsigned to write one that --verify refuses unless told --accept-untrusted-head",
      );
    }
    if (signing && values.unsigned)
      throw new UsageError(`--unsigned, but there is a key to sign with (${signing.from}): leave out one of them`);
    const { client } = await connect();
    // A conversation is read as its turns; its export is its history's, as the archive keeps it.
    const conversation = (await client.workflow.getHandle(workflowId).describe()).type === WorkflowType.CONVERSATION;
    if (conversation && values.mermaid) {
      throw new UsageError(
        `${workflowId} is a conversation: --mermaid takes a chain; read the conversation with baton audit ${workflowId} (or --json, or --export <file>), and a turn's chain in it by its own workflow id when it delegated`,
      );
    }
    if (conversation && values.export === undefined) {
      const audit = await auditConversation(client, workflowId);
      out(values.json ? JSON.stringify(audit, null, 2) : formatConversation(audit));
      return ExitCode.OK;
    }
    const chain = conversation ? await auditRun(client, workflowId) : await new Baton({ client }).audit(workflowId);
    if (values.export !== undefined) {
      const unsigned = exportAudit(chain);
      const doc: AuditExport = signing ? await signAuditExport(unsigned, signing.signer) : unsigned;
      fs.writeFileSync(values.export, `${JSON.stringify(doc, null, 2)}\n`);
      out(`exported ${doc.events.length} events of ${workflowId} to ${values.export}; head ${doc.head}`);
      if (signing)
        out(
          `head signed with key ${signing.signer.kid} (${signing.from})${signing.signer.publicKey ? `, public key ${signing.signer.publicKey}` : ''}`,
        );
      else
        err(
          'WARNING: the head is NOT signed (--unsigned): anyone can rewrite this export and recompute its digests, and --verify refuses it unless told --accept-untrusted-head',
        );
      return ExitCode.OK;
    }
    out(values.json ? JSON.stringify(chain, null, 2) : values.mermaid ? toMermaid(chain) : formatTimeline(chain));
    return ExitCode.OK;
  },
};

interface VerifyFlags {
  'export-keys'?: string[];
  'accept-untrusted-head': boolean;
  keys?: string;
  head?: string;
  'against-history': boolean;
}

async function verify(file: string, flags: VerifyFlags, out: Print, err: Print): Promise<number> {
  const doc = readJson(file);
  const trusted = trustedExportKeys(flags['export-keys'] ?? []);
  const checked = verifyAuditExport(doc, {
    exportKeys: trusted.keys,
    acceptUntrustedHead: flags['accept-untrusted-head'],
    ...(flags.keys !== undefined ? { trustedKeys: readApproverKeys(flags.keys) } : {}),
    ...(flags.head !== undefined ? { head: flags.head } : {}),
  });
  if (!checked.ok) {
    const f = checked.failure!;
    const where =
      f.seq < 0
        ? 'the document'
        : f.seq >= checked.events && f.kind === undefined
          ? 'the head'
          : `event #${f.seq}${f.kind ? ` (${f.kind}${f.workflowId ? ` in chain ${f.workflowId}` : ''})` : ''}`;
    err(`not verified: ${where}: ${f.reason}`);
    if (checked.events > 0) err(`the ${checked.events} events before it verified`);
    return ExitCode.FAILURE;
  }
  const h = checked.headSignature!;
  if (h.status !== 'trusted')
    err(
      `WARNING: the head is NOT vouched for by a key you trust (${h.reason}); accepted because of --accept-untrusted-head: this document may have been rewritten whole, digests and all`,
    );
  if (flags['against-history']) {
    const { client } = await connect();
    const online = await verifyAgainstHistory(client, doc as AuditExport);
    if (!online.ok) {
      const f = online.failure!;
      err(
        `not verified against history: ${f.seq >= 0 ? `event #${f.seq} (${f.kind} in chain ${f.workflowId})` : `chain ${f.workflowId}`}: ${f.reason}`,
      );
      return ExitCode.FAILURE;
    }
    out(
      `matches history: ${online.matched} recorded results and approval events in ${online.chains} chain${online.chains === 1 ? '' : 's'}`,
    );
  }
  const keys = checked.keys.length > 0 ? ` (keys ${checked.keys.join(', ')})` : '';
  const unchecked =
    checked.unchecked > 0 ? `; ${checked.unchecked} redacted, checked by their signed digest only or not at all` : '';
  out(
    `verified: ${checked.events} events, ${checked.signed} signed decisions${keys}, ${checked.claimed} with a claimed approver, ${checked.approvedCalls} approved tool calls after their decisions${unchecked}`,
  );
  out(
    h.status === 'trusted'
      ? `head ${checked.head}, signed with key ${h.kid} at ${h.signedAt} (trusted: ${trusted.from.join(', ')})`
      : `head ${checked.head}, NOT VOUCHED FOR (${h.status}${h.kid ? `: key ${h.kid}` : ''})`,
  );
  return ExitCode.OK;
}
