/**
 * `baton audit --archive <dir|s3://bucket/prefix>`: what an archive holds, an archived chain's
 * export, the offline check of every archived export, and the erasure of one chain for a data
 * subject — all without Temporal, so they work after the chains' histories are deleted.
 */
import fs from 'node:fs';
import { eraseArchived } from '../audit/archive/erase';
import { openArchive } from '../audit/archive/location';
import { listArchive, readArchived, verifyArchive } from '../audit/archive/read';
import { displayText } from '../common/display';
import { parse, UsageError } from './args';
import { readApproverKeys, trustedExportKeys } from './auditKeys';
import { type CommandContext, ExitCode } from './context';

/** The synopsis `baton audit` shows for its archive forms. */
export const ARCHIVE_SYNOPSIS =
  'baton audit --archive <dir|s3://bucket/prefix> [<workflowId> [--export <file>]] [--verify [<workflowId>] [--export-keys <file>] [--accept-untrusted-head] [--keys <file>]] [--erase <workflowId> --reason <text> --by <name>]';

/** The help `baton audit` shows for them. */
export const ARCHIVE_HELP = `Archive (see docs/compliance.md; no Temporal needed, so after history is deleted too):
  --archive <dir|s3://bucket/prefix>  list what the archive holds: each chain archived, erased or lost
                     (S3: AWS_REGION, AWS credentials, AWS_ENDPOINT_URL_S3 for another S3-compatible server)
  --archive <loc> <workflowId>  print the chain's archived export (--export <file> writes it)
  --archive <loc> --verify [<workflowId>]  check every archived export (or one chain's) as --verify <file>
                     does, and that each is the chain its key names; exits 1 if any fails
  --archive <loc> --erase <workflowId> --reason <text> --by <name>  delete the chain's archived export
                     for a data subject, leaving a tombstone; other chains' proofs are untouched`;

/** Run `baton audit --archive …`. */
export async function auditArchive(argv: string[], { out, err }: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, {
    archive: { type: 'string' },
    export: { type: 'string' },
    verify: { type: 'boolean', default: false },
    'export-keys': { type: 'string', multiple: true },
    'accept-untrusted-head': { type: 'boolean', default: false },
    keys: { type: 'string' },
    erase: { type: 'string' },
    reason: { type: 'string' },
    by: { type: 'string' },
  });
  const location = values.archive!;
  let store;
  try {
    store = openArchive(location);
  } catch (e) {
    throw new UsageError(`--archive: ${(e as Error).message}`);
  }
  if (positionals.length > 1) throw new UsageError(`expected at most one <workflowId>, got ${positionals.length}`);
  const workflowId = positionals[0];
  if (values.erase !== undefined) {
    if (workflowId !== undefined || values.verify || values.export !== undefined)
      throw new UsageError('--erase <workflowId> takes no other workflow id, --verify or --export');
    if (!values.reason || !values.by)
      throw new UsageError(
        '--erase needs --reason <text> (e.g. "GDPR Art. 17 request 2026-114") and --by <name> (who asked for it)',
      );
    const done = await eraseArchived(store, values.erase, { reason: values.reason, by: values.by });
    for (const t of done.tombstones)
      out(`erased ${displayText(t.key)} (head ${t.head ?? 'unknown'}, ${t.events ?? '?'} events); tombstone kept`);
    return ExitCode.OK;
  }
  if (values.reason !== undefined || values.by !== undefined)
    throw new UsageError('--reason and --by go with --erase <workflowId>');
  if (values.verify) {
    if (values.export !== undefined)
      throw new UsageError('--verify checks the archive in place; --export goes with <workflowId> alone');
    return verify(store, workflowId, values, out, err);
  }
  if (values['export-keys'] !== undefined || values.keys !== undefined || values['accept-untrusted-head'])
    throw new UsageError('--export-keys, --keys and --accept-untrusted-head go with --verify');
  const entries = await listArchive(store, workflowId !== undefined ? { workflowId } : {});
  if (workflowId === undefined) {
    for (const e of entries)
      out(
        `${e.state.padEnd(8)} ${e.date}  ${displayText(e.tenant)}  ${displayText(e.team)}  ${displayText(e.workflowId)}  ${e.runId}`,
      );
    out(
      `${entries.filter((e) => e.state === 'archived').length} archived, ${entries.filter((e) => e.state === 'erased').length} erased, ${entries.filter((e) => e.state === 'lost').length} lost in ${store.location}`,
    );
    return ExitCode.OK;
  }
  const archived = entries.filter((e) => e.state === 'archived');
  if (archived.length === 0) {
    const other = entries[0];
    err(
      other
        ? `${displayText(workflowId)} is ${other.state} in ${store.location} (${displayText(other.key)})`
        : `${store.location} holds no chain ${displayText(workflowId)}`,
    );
    return ExitCode.FAILURE;
  }
  // The latest run archived: a chain replayed after it failed has one export per run.
  const latest = archived[archived.length - 1]!;
  const doc = await readArchived(store, latest.key);
  if (values.export !== undefined) {
    fs.writeFileSync(values.export, `${JSON.stringify(doc, null, 2)}\n`);
    out(
      `wrote the archived export of ${displayText(workflowId)} run ${latest.runId} (${doc.events.length} events, head ${doc.head}) to ${values.export}${archived.length > 1 ? `; ${archived.length - 1} earlier run(s) archived too` : ''}`,
    );
  } else out(JSON.stringify(doc, null, 2));
  return ExitCode.OK;
}

async function verify(
  store: ReturnType<typeof openArchive>,
  workflowId: string | undefined,
  flags: { 'export-keys'?: string[]; 'accept-untrusted-head': boolean; keys?: string },
  out: (l: string) => void,
  err: (l: string) => void,
): Promise<number> {
  const trusted = trustedExportKeys(flags['export-keys'] ?? []);
  const results = await verifyArchive(store, {
    exportKeys: trusted.keys,
    acceptUntrustedHead: flags['accept-untrusted-head'],
    ...(flags.keys !== undefined ? { trustedKeys: readApproverKeys(flags.keys) } : {}),
    ...(workflowId !== undefined ? { workflowId } : {}),
  });
  let failures = 0;
  for (const { entry, verification: v } of results) {
    const name = `${displayText(entry.workflowId)} run ${entry.runId}`;
    if (!v.ok) {
      failures++;
      err(
        `NOT verified: ${name} (${displayText(entry.key)}): ${v.failure?.seq !== undefined && v.failure.seq >= 0 ? `event #${v.failure.seq}: ` : ''}${v.failure?.reason ?? 'unknown'}`,
      );
      continue;
    }
    const h = v.headSignature;
    const head =
      h?.status === 'trusted' ? `signed with key ${h.kid}` : `head NOT vouched for (${h?.status ?? 'unsigned'})`;
    out(`verified: ${name}: ${v.events} events, ${v.signed} signed decisions, head ${v.head}, ${head}`);
  }
  if (results.length === 0)
    err(
      `${store.location} holds no archived export${workflowId !== undefined ? ` of ${displayText(workflowId)}` : ''}`,
    );
  out(`${results.length - failures} of ${results.length} archived exports verified`);
  return failures > 0 || results.length === 0 ? ExitCode.FAILURE : ExitCode.OK;
}
