/**
 * The recorded chains with signed decisions whose verifiable export the export tests edit and forge
 * (test/histories/signed-decisions.json, and signed-forward.json with its specialist's chain), and
 * how they pick an event out of an export.
 */
import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { buildAudit } from '../../src/audit/chain';
import { exportAudit, signAuditExport, type AuditExport } from '../../src/audit/export';
import type { ApprovalRecord } from '../../src/workflow';
import { exportKeys, keys } from '../helpers/signing';

const DIR = path.join(__dirname, '..', 'histories');

/** The audit of a recorded history in test/histories, with `children` the audits of its specialists' chains. */
function recorded(file: string, children: ReturnType<typeof buildAudit>[] = []) {
  const { workflowId, ...history } = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as {
    workflowId: string;
  };
  const chain = buildAudit(workflowId, [{ runId: 'run-1', events: historyFromJSON(history).events ?? [] }]);
  return children.length > 0 ? { ...chain, children } : chain;
}

/** The chain of signed-decisions.json: a payout and a handoff approved with signed decisions. */
export const signedChain = recorded('signed-decisions.json');
/** The chain of signed-forward.json, with the specialist's chain its decision was forwarded to. */
export const forwardChain = recorded('signed-forward.json', [recorded('signed-forward.leaf-1.1.json')]);
/** What a verifier is told to trust: the export keys. */
export const trust = { exportKeys };

/** The export of {@link signedChain}, its head signed with the audit key. */
export const signedExport = async (): Promise<AuditExport> =>
  signAuditExport(exportAudit(structuredClone(signedChain)), keys.audit.signer);

/** The `nth` event of `kind` in an export. */
export const at = (doc: AuditExport, kind: string, nth = 0) => doc.events.filter((e) => e.event.kind === kind)[nth]!;
/** The `nth` approval decision in an export, as its record. */
export const decided = (doc: AuditExport, nth = 0) =>
  at(doc, 'approval_decided', nth).event as unknown as ApprovalRecord;
