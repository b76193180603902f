/**
 * The recordings an eval worker answers from, read once per case and kept while the eval runs.
 * A candidate chain finds its case by its workflow id (`<eval>/case-<n>/chain…`), the case's
 * source in the case workflow's input: any eval worker process can answer any case, and one
 * started again after a crash reads the same recordings.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { isGrpcServiceError } from '@temporalio/client';
import { decodeHistory } from '../payloads/history';
import { fromPayloads } from '../payloads/read';
import { chainFromFile, chainFromServer } from './chainRecord';
import { caseOfChain } from '../common/eval/messages';
import { Recording } from './recording';
import type { CaseSource, EvalCaseInput } from '../common/eval/types';
import { historyOf } from '../payloads/historyPages';

/** A case as its candidate chain's calls see it: the case, and its record when it has one. */
export interface CaseContext {
  input: EvalCaseInput;
  recording?: Recording;
}

/** Cases kept at once; older ones are read again when asked for. */
const MAX_CASES = 200;

export class RecordingStore {
  private readonly cases = new Map<string, Promise<CaseContext>>();

  constructor(private readonly client: Client) {}

  /** The case a candidate chain (or one of its specialists) belongs to; `undefined` for any other chain. */
  async forChain(workflowId: string): Promise<CaseContext | undefined> {
    const caseId = caseOfChain(workflowId);
    return caseId ? this.forCase(caseId) : undefined;
  }

  /** The case workflow `caseId`'s case, read from its input. */
  forCase(caseId: string): Promise<CaseContext> {
    let found = this.cases.get(caseId);
    if (!found) {
      found = this.read(caseId);
      // A read that failed is tried again by the next call, not remembered.
      found.catch(() => this.cases.delete(caseId));
      this.cases.set(caseId, found);
      if (this.cases.size > MAX_CASES) this.cases.delete(this.cases.keys().next().value!);
    }
    return found;
  }

  /** The recorded chain of a source; `undefined` when it has none (a dataset line whose chain is gone). */
  async recordingOf(source: CaseSource): Promise<Recording | undefined> {
    if (source.kind === 'history') return new Recording(await chainFromFile(this.client, source.file));
    const id = source.kind === 'chain' ? source.workflowId : source.chainId;
    if (!id) return undefined;
    try {
      return new Recording(await chainFromServer(this.client, id));
    } catch (err) {
      if (source.kind === 'dataset' && isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async read(caseId: string): Promise<CaseContext> {
    const history = await decodeHistory(
      await historyOf(this.client, caseId),
      this.client.options.loadedDataConverter.payloadCodecs,
    );
    const input = fromPayloads<EvalCaseInput>(history.events?.[0]?.workflowExecutionStartedEventAttributes?.input);
    if (!input) throw new Error(`eval case ${caseId} has no input`);
    const recording = await this.recordingOf(input.case.source);
    return { input, ...(recording ? { recording } : {}) };
  }
}

/** Whether `err` says a workflow does not exist. */
export function isNotFound(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || (isGrpcServiceError(err) && err.code === 5);
}
