/**
 * An eval's cases from where its chains are: chains by id, chains a visibility query finds,
 * exported history files, or a dataset.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { UserError } from '../common/errors';
import { PARENT_MEMO, WorkflowType } from '../common/messages';
import { readDataset } from './dataset';
import type { EvalCaseSpec } from '../common/eval/types';

/** Where an eval's chains come from: one of these. */
export type CaseSelection =
  { ids: string[] } | { query: string; limit?: number } | { histories: string[] } | { dataset: string };

/** Chains a query finds at most, unless told otherwise. */
export const DEFAULT_QUERY_LIMIT = 100;

/** The cases `selection` names. */
export async function evalCases(client: Client, selection: CaseSelection): Promise<EvalCaseSpec[]> {
  if ('ids' in selection) {
    const ids = [...new Set(selection.ids.map((id) => id.trim()).filter(Boolean))];
    if (ids.length === 0) throw new UserError('no chain ids given');
    return ids.map((workflowId) => ({ id: workflowId, source: { kind: 'chain', workflowId } }));
  }
  if ('histories' in selection) {
    if (selection.histories.length === 0) throw new UserError('no history files given');
    return selection.histories.map((file) => {
      if (!fs.existsSync(file)) throw new UserError(`no history file ${file}`);
      return { id: historyId(file), source: { kind: 'history', file: path.resolve(file) } };
    });
  }
  if ('dataset' in selection) return readDataset(selection.dataset);
  return chainsOfQuery(client, selection.query, selection.limit ?? DEFAULT_QUERY_LIMIT);
}

/**
 * Chains that ended and that `query` (a visibility query, e.g. `BatonTeam="support@v1"`) finds,
 * oldest first: top chains only (not specialists, nor an eval's own chains), each once.
 */
async function chainsOfQuery(client: Client, query: string, limit: number): Promise<EvalCaseSpec[]> {
  const full = `WorkflowType = "${WorkflowType.HANDOFF_RUN}" AND ExecutionStatus != "Running" AND ExecutionStatus != "ContinuedAsNew"${query.trim() ? ` AND (${query})` : ''}`;
  const found = new Map<string, number>();
  try {
    for await (const wf of client.workflow.list({ query: full })) {
      if (wf.memo?.[PARENT_MEMO] || /\/case-\d+\/chain/.test(wf.workflowId) || found.has(wf.workflowId)) continue;
      found.set(wf.workflowId, wf.startTime.getTime());
      if (found.size >= limit) break;
    }
  } catch (err) {
    throw new UserError(`the visibility query ${JSON.stringify(query)} was refused: ${(err as Error).message}`);
  }
  if (found.size === 0) throw new UserError(`no ended chains match ${JSON.stringify(query)}`);
  return [...found.entries()]
    .sort((a, b) => a[1] - b[1])
    .map(([workflowId]) => ({ id: workflowId, source: { kind: 'chain', workflowId } }));
}

/** The workflow id a history file names, else its file name. */
function historyId(file: string): string {
  try {
    const { workflowId } = JSON.parse(fs.readFileSync(file, 'utf8')) as { workflowId?: unknown };
    if (typeof workflowId === 'string') return workflowId;
  } catch {
    // Read again, with its error, when the case runs.
  }
  return path.basename(file);
}
