/** Audit chains for the timeline and diagram tests: a failed chain of workflow "wf" with the events a test gives it. */
import { AUDIT_SCHEMA, type AuditChain, type AuditEvent } from '../../src/audit/chain';

/** The time every event of these chains happened at. */
export const at = '2026-01-01T00:00:00.000Z';

/** A chain of workflow "wf", run "r", that failed, with `events` and whatever else is given. */
export const chainOf = (events: Partial<AuditChain> & { events: AuditEvent[] }): AuditChain => ({
  schema: AUDIT_SCHEMA,
  workflowId: 'wf',
  runIds: ['r'],
  status: 'failed',
  handoffs: [],
  lineage: [],
  input: { agent: 'a', input: 'go' },
  ...events,
});
