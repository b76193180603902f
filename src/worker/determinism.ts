import fs from 'node:fs';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { Client } from '@temporalio/client';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { temporal } from '@temporalio/proto';
import { batonDataConverter } from '../payloads/codec';
import { workflowBundle } from '.';

/** The outcome of replaying one history against the current workflow code. */
export interface ReplayCheck {
  /** The workflow id, or the file the history came from. */
  source: string;
  ok: boolean;
  /** Set when the current code would not produce the recorded history. */
  nondeterministic?: boolean;
  error?: string;
}

/** A history to check: from a file (Temporal's JSON, as `temporal workflow show --output json` writes), or fetched. */
export interface HistorySource {
  source: string;
  history: temporal.api.history.v1.IHistory;
}

/** Read histories from JSON files. */
export function historiesFromFiles(files: string[]): HistorySource[] {
  return files.map((file) => ({ source: file, history: historyFromJSON(JSON.parse(fs.readFileSync(file, 'utf8'))) }));
}

/** Fetch the history of each workflow id (its latest run) from the server. */
export async function historiesFromServer(client: Client, workflowIds: string[]): Promise<HistorySource[]> {
  return Promise.all(workflowIds.map(async (id) => ({ source: id, history: await client.workflow.getHandle(id).fetchHistory() })));
}

/**
 * Replay histories against the current workflow code (`Worker.runReplayHistories`): a history the
 * code no longer reproduces means a deploy would break chains like it; guard the change with `patched()`.
 * Payloads are decoded with `options.dataConverter`, by default baton's codecs as the environment
 * configures them (`BATON_ENCRYPTION_KEYS`, `BATON_ENCRYPTION_KEY_FILE`, `BATON_COMPRESS`).
 */
export async function checkHistories(
  histories: HistorySource[],
  options: Partial<ReplayWorkerOptions> = {},
): Promise<ReplayCheck[]> {
  const results: ReplayCheck[] = [];
  const dataConverter = options.dataConverter ?? batonDataConverter();
  const bundle = await workflowBundle({ failureConverterPath: dataConverter.failureConverterPath });
  const replay = Worker.runReplayHistories(
    { workflowBundle: bundle, ...options, dataConverter } as ReplayWorkerOptions,
    histories.map((h) => ({ workflowId: h.source, history: h.history })),
  );
  for await (const r of replay) {
    results.push(
      r.error
        ? { source: r.workflowId, ok: false, nondeterministic: r.error instanceof DeterminismViolationError, error: r.error.message }
        : { source: r.workflowId, ok: true },
    );
  }
  return results;
}
