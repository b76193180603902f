import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { buildAudit, type AuditChain, type AuditEvent } from '../../src/audit/chain';

const DIR = path.join(__dirname, '..', 'histories');

/** The audit of the recorded histories `files` (one per run, oldest first), read as `temporal workflow show --output json` wrote them. */
export function auditOf(...files: string[]): AuditChain {
  const runs = files.map((file, i) => ({
    runId: `run-${i + 1}`,
    events: historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'))).events ?? [],
  }));
  return buildAudit('recorded', runs);
}

/** The events of one kind, typed. */
export function eventsOf<K extends AuditEvent['kind']>(chain: AuditChain, kind: K): Extract<AuditEvent, { kind: K }>[] {
  return chain.events.filter((e): e is Extract<AuditEvent, { kind: K }> => e.kind === kind);
}

/** The kinds of events, signals and updates left out. */
export function kinds(chain: AuditChain): string[] {
  return chain.events.map((e) => e.kind).filter((k) => k !== 'signal' && k !== 'update');
}
