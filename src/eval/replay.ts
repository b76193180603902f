/**
 * A candidate chain's calls answered from its record: an activity interceptor of the eval worker.
 * A model call whose input the record has (same agent, n-th call, model, conversation, tools and
 * schemas) gets the recorded answer and no model is called; any other goes to the model. A tool
 * call gets the recorded result of the same call (agent, tool, arguments), or runs for real when
 * the eval says so, or is not run and the model is told. Calls of chains that are no eval's run as usual.
 */
import type { Context } from '@temporalio/activity';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';
import { ActivityType } from '../common/messages';
import type { ModelResponse } from '../common/model';
import type { RunToolInput, RunToolResult } from '../common/team';
import { REUSED_ACTIVITIES } from './recording';
import type { CaseContext, RecordingStore } from './store';
import { ToolMode } from '../common/eval/types';

/** The interceptor factory for `createWorker({ worker: { interceptors: { activity: [...] } } })`. */
export function answersFromRecords(store: RecordingStore): ActivityInterceptorsFactory {
  return (ctx) => ({ inbound: new RecordedAnswers(ctx, store) });
}

/** What a candidate's tool call is answered when the eval does not run it. */
export function notRunAnswer(tool: string): string {
  return `Error: ${tool} was not run: this is an evaluation that answers tools from the recorded chain, which did not make this call. Go on without its result.`;
}

class RecordedAnswers implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly ctx: Context,
    private readonly store: RecordingStore,
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const type = this.ctx.info.activityType;
    if (!REUSED_ACTIVITIES.includes(type)) return next(input);
    const found = await this.store.forChain(this.ctx.info.workflowExecution?.workflowId ?? '');
    if (!found) return next(input);
    const arg = input.args[0];
    if (type === ActivityType.RUN_TOOL)
      return toolAnswer(found, arg as RunToolInput, () => next(input) as Promise<RunToolResult>);
    const recorded = found.recording?.answer(type, arg);
    if (recorded === undefined) return next(input);
    // A local model call answers with its input beside the response, as the activity does.
    return type === ActivityType.CALL_MODEL_LOCAL ? { input: arg, response: recorded as ModelResponse } : recorded;
  }
}

/** How a candidate's tool call is answered; `true` in `how` when it runs for real. */
export function toolMode(
  found: CaseContext,
  call: Pick<RunToolInput, 'agentId' | 'call'>,
): 'recorded' | 'live' | 'not_run' {
  const { options } = found.input;
  if (options.tools === ToolMode.LIVE) return 'live';
  if (found.recording?.has(ActivityType.RUN_TOOL, call)) return 'recorded';
  return options.liveTools.includes(call.call.name) ? 'live' : 'not_run';
}

async function toolAnswer(
  found: CaseContext,
  call: RunToolInput,
  run: () => Promise<RunToolResult>,
): Promise<RunToolResult> {
  const mode = toolMode(found, call);
  if (mode === 'live') return run();
  if (mode === 'recorded') return found.recording!.answer(ActivityType.RUN_TOOL, call) as RunToolResult;
  return { ok: false, content: notRunAnswer(call.call.name) };
}
