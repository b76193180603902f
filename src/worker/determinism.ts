import fs from 'node:fs';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { Client } from '@temporalio/client';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { temporal } from '@temporalio/proto';
import { batonDataConverter } from '../payloads/codec';
import { workflowBundle } from './bundle';
import { historyOf } from '../payloads/historyPages';

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
  /**
   * The workflow id the history ran under, when it is not `source`: code that derives ids from it
   * (a specialist's workflow id, `<caller>/<specialist>-<turn>.<n>`) replays only under the same id.
   */
  workflowId?: string;
}

/** Read histories from JSON files; a top-level `workflowId` beside `events` names the id the history ran under. */
export function historiesFromFiles(files: string[]): HistorySource[] {
  return files.map((file) => {
    const { workflowId, ...json } = JSON.parse(fs.readFileSync(file, 'utf8')) as { workflowId?: unknown };
    const history = historyFromJSON(json);
    const id = typeof workflowId === 'string' ? workflowId : delegatingWorkflowId(history);
    return { source: file, history, ...(id ? { workflowId: id } : {}) };
  });
}

/**
 * The workflow id of a chain that delegated, read from its history when the file does not name it:
 * its specialists' chains are named after it (`<workflow id>/<agent>-<turn>.<n>`), so a replay must run under it.
 */
function delegatingWorkflowId(history: temporal.api.history.v1.IHistory): string | undefined {
  const child = history.events?.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)
    ?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
  const slash = child?.lastIndexOf('/') ?? -1;
  return slash > 0 ? child!.slice(0, slash) : undefined;
}

/** Fetch the history of each workflow id (its latest run) from the server. */
export async function historiesFromServer(client: Client, workflowIds: string[]): Promise<HistorySource[]> {
  return Promise.all(
    workflowIds.map(async (id) => ({ source: id, workflowId: id, history: await historyOf(client, id) })),
  );
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
    histories.map((h) => ({ workflowId: h.workflowId ?? h.source, history: h.history })),
  );
  // Results come in the order of the histories.
  let i = 0;
  for await (const r of replay) {
    const source = histories[i++]?.source ?? r.workflowId;
    results.push(
      r.error
        ? { source, ok: false, nondeterministic: r.error instanceof DeterminismViolationError, error: r.error.message }
        : { source, ok: true },
    );
  }
  return results;
}
