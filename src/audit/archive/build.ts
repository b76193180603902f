/**
 * The archived copy of a closed chain or conversation: the export `baton audit <id> --export`
 * writes (the chain, its specialists, the digest chain), read from history with the same code,
 * redacted as the team says (its sensitive tool arguments and results) and as the archive's
 * personal data rules say, its head signed; and the key it is kept under.
 */
import type { Client } from '@temporalio/client';
import type { ClosedExecution } from '../../common/archive';
import type { Ed25519Signer } from '../../common/signatures/head';
import { exportAudit, signAuditExport, type AuditExport } from '../export';
import { auditRun } from '../fetch';
import type { AuditChain } from '../types';
import { archiveKey, NONE } from './keys';
import { applyPersonalData, type PersonalDataRules } from './personalData';

/** How archived exports are made. */
export interface ArchiveExportOptions {
  /** The key that signs each export's head. Without one the head is unsigned, and `--verify` refuses it unless told to accept an untrusted head. */
  signer?: Ed25519Signer;
  /** Personal data fields to drop or hash. */
  personalData?: PersonalDataRules;
  /** The field of a chain's context that names its tenant (the key's first segment). @default "tenant" */
  tenantField?: string;
}

/** A chain's archived export and its key. */
export interface ArchivedExport {
  key: string;
  doc: AuditExport;
}

/** The export of the closed execution `closed`, under its key. */
export async function archivedExport(
  client: Client,
  closed: ClosedExecution,
  options: ArchiveExportOptions = {},
): Promise<ArchivedExport> {
  const chain = await auditRun(client, closed.workflowId, closed.runId);
  return exportOf(chain, closed, options);
}

/** The export of `chain` (read from history already) and its key. */
export async function exportOf(
  chain: AuditChain,
  closed: ClosedExecution,
  options: ArchiveExportOptions = {},
): Promise<ArchivedExport> {
  // The key first: the tenant may be among the fields the rules drop.
  const key = keyOf(chain, closed, options.tenantField);
  if (options.personalData) applyPersonalData(chain, options.personalData);
  const unsigned = exportAudit(chain);
  const doc = options.signer ? await signAuditExport(unsigned, options.signer) : unsigned;
  return { key, doc };
}

/** The key of a closed chain: its tenant, its team's name, the date it closed, its id and last run. */
export function keyOf(
  chain: Pick<AuditChain, 'input' | 'team'>,
  closed: Pick<ClosedExecution, 'workflowId' | 'runId' | 'closedAt'>,
  tenantField = 'tenant',
): string {
  const tenant = chain.input?.context?.[tenantField];
  return archiveKey({
    tenant: typeof tenant === 'string' || typeof tenant === 'number' ? String(tenant) : NONE,
    team: chain.team?.version?.name ?? NONE,
    date: closed.closedAt.slice(0, 10),
    workflowId: closed.workflowId,
    runId: closed.runId,
  });
}
