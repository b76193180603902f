/**
 * The eval worker's activities: read a case's source for its request, decide its candidate's
 * approvals as recorded, score the candidate against the record, and the LLM judge. Eval
 * workflows import only the type.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { clipText } from '../common/limits';
import type { HandoffRunInput } from '../common/run';
import { OpenAIProvider } from '../models/openai';
import type { ModelProviders } from '../models/provider';
import { ScriptedProvider } from '../models/scripted';
import { decideApprovals } from './approver';
import { chainFromServer } from './chainRecord';
import type {
  ApprovalsDecided,
  EvalActivities,
  JudgeInput,
  JudgeVerdict,
  PreparedCase,
  ScoredCase,
} from '../common/eval/activities';
import { caseWorkflowId } from '../common/eval/messages';
import type { EvalCaseInput } from '../common/eval/types';
import { judge } from './judge';
import { scoreCase } from './score';
import { isNotFound, type RecordingStore } from './store';

/** What the eval's activities need. */
export interface EvalActivityDependencies {
  client: Client;
  store: RecordingStore;
  /** Model providers for the judge, by name (`openai` and `scripted` are built in). */
  providers?: ModelProviders;
}

/** Build the eval worker's activities. */
export function createEvalActivities({ client, store, providers = {} }: EvalActivityDependencies): EvalActivities {
  const resolved: ModelProviders = { openai: new OpenAIProvider(), scripted: new ScriptedProvider(), ...providers };
  return {
    /** The request a case's candidate chain starts with: the recorded chain's, or the dataset line's. */
    async prepareCase(input: EvalCaseInput): Promise<PreparedCase> {
      const id = caseWorkflowId(input.evalId, input.index);
      let recorded: HandoffRunInput | undefined;
      try {
        recorded = (await store.forCase(id)).recording?.chain.input;
      } catch (err) {
        if (isNotFound(err) || (err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof SyntaxError)
          return { error: `cannot read ${describeSource(input)}: ${(err as Error).message}` };
        throw err;
      }
      const given = input.case.start ?? recorded;
      if (!given) return { error: `${describeSource(input)} records no request to run` };
      const options = { ...given.options, ...input.options.runOptions };
      return {
        start: {
          agent: given.agent,
          input: given.input,
          ...(Object.keys(options).length > 0 ? { options } : {}),
          ...(given.context ? { context: given.context } : {}),
        },
      };
    },

    /** Decide the candidate chain's approvals as its record did, until the chain ends. */
    decideApprovals({ caseId, chainId }: { caseId: string; chainId: string }): Promise<ApprovalsDecided> {
      return decideApprovals(client, store, caseId, chainId);
    },

    /** The case's report: the candidate chain against its record and the case's expectations. */
    async scoreCase({
      caseId,
      chainId,
      approvals,
    }: {
      caseId: string;
      chainId: string;
      approvals: ApprovalsDecided;
    }): Promise<{ scored: ScoredCase; answer: string }> {
      const found = await store.forCase(caseId);
      const candidate = await chainFromServer(client, chainId);
      const output = candidate.audit.result?.output;
      // The judge reads the whole answer (within reason); the report keeps it clipped.
      const answer = clipText(
        output === undefined ? '' : typeof output === 'string' ? output : JSON.stringify(output),
        16_000,
      );
      return { scored: scoreCase(found, candidate, approvals), answer };
    },

    /** The LLM judge's score of a case's answer against its rubric. */
    async judgeCase(input: JudgeInput): Promise<JudgeVerdict> {
      const provider = resolved[input.model.provider];
      if (!provider)
        throw ApplicationFailure.nonRetryable(
          `the eval worker has no model provider "${input.model.provider}" for the judge (it has ${Object.keys(resolved).join(', ')})`,
          'ModelRequestError',
        );
      const ctx = Context.current();
      return judge(provider, input, {
        attempt: ctx.info.attempt,
        signal: ctx.cancellationSignal,
        sleep: (ms) => ctx.sleep(ms),
        heartbeat: (d) => ctx.heartbeat(d),
      });
    },
  };
}

function describeSource(input: EvalCaseInput): string {
  const s = input.case.source;
  return s.kind === 'chain'
    ? `chain ${s.workflowId}`
    : s.kind === 'history'
      ? `history ${s.file}`
      : `dataset ${s.file} line ${s.line}`;
}
