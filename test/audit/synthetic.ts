import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { ActivityType, APPROVAL_EVENT_MEMO, HANDOFF_MEMO } from '../../src/common/messages';
import type { CallModelInput, ModelResponse } from '../../src/common/model';
import type { HandoffRunInput, HandoffRunResult, RecordHandoffInput } from '../../src/common/run';
import type { RunToolInput, RunToolResult, TeamSpec } from '../../src/common/team';
import type { HistoryEvent } from '../../src/payloads/read';

const base64 = (text: string) => Buffer.from(text).toString('base64');
const payload = (value: unknown) => ({
  metadata: { encoding: base64('json/plain') },
  data: base64(JSON.stringify(value)),
});
const payloads = (value: unknown) => ({ payloads: [payload(value)] });

/**
 * A run's history written event by event in the JSON that `temporal workflow show --output json`
 * prints, shaped as the server records baton's commands; `events()` reads it as the audit does.
 */
export class HistoryBuilder {
  private readonly json: Record<string, unknown>[] = [];
  private ms = Date.parse('2026-01-01T00:00:00Z');

  private add(eventType: string, attributes: Record<string, unknown>): number {
    const eventId = this.json.length + 1;
    this.ms += 10;
    this.json.push({
      eventId: String(eventId),
      eventTime: new Date(this.ms).toISOString(),
      eventType: `EVENT_TYPE_${eventType}`,
      ...attributes,
    });
    return eventId;
  }

  events(): HistoryEvent[] {
    return historyFromJSON({ events: this.json }).events ?? [];
  }

  started(input: HandoffRunInput | Record<string, unknown>): this {
    this.add('WORKFLOW_EXECUTION_STARTED', { workflowExecutionStartedEventAttributes: { input: payloads(input) } });
    return this;
  }

  private activity(name: string, input: unknown, result: unknown): this {
    const scheduledEventId = String(
      this.add('ACTIVITY_TASK_SCHEDULED', {
        activityTaskScheduledEventAttributes: { activityType: { name }, input: payloads(input ?? null) },
      }),
    );
    this.add('ACTIVITY_TASK_STARTED', { activityTaskStartedEventAttributes: { scheduledEventId, attempt: 1 } });
    this.add('ACTIVITY_TASK_COMPLETED', {
      activityTaskCompletedEventAttributes: { scheduledEventId, result: payloads(result) },
    });
    return this;
  }

  team(spec: TeamSpec): this {
    return this.activity(ActivityType.LOAD_TEAM, undefined, spec);
  }

  model(input: CallModelInput, response: ModelResponse): this {
    return this.activity(ActivityType.CALL_MODEL, input, response);
  }

  tool(input: RunToolInput, result: RunToolResult): this {
    return this.activity(ActivityType.RUN_TOOL, input, result);
  }

  handoff(entry: RecordHandoffInput): this {
    this.add('WORKFLOW_PROPERTIES_MODIFIED', {
      workflowPropertiesModifiedEventAttributes: { upsertedMemo: { fields: { [HANDOFF_MEMO]: payload(entry) } } },
    });
    return this;
  }

  /** A memo upsert of `key` (one event). */
  memo(key: string, value: unknown): this {
    this.add('WORKFLOW_PROPERTIES_MODIFIED', {
      workflowPropertiesModifiedEventAttributes: { upsertedMemo: { fields: { [key]: payload(value) } } },
    });
    return this;
  }

  approvalEvent(event: { type: string } & Record<string, unknown>): this {
    this.add('WORKFLOW_PROPERTIES_MODIFIED', {
      workflowPropertiesModifiedEventAttributes: {
        upsertedMemo: { fields: { [APPROVAL_EVENT_MEMO]: payload(event) } },
      },
    });
    return this;
  }

  /** `cause` as Temporal's JSON names it, e.g. `WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND`. */
  taskFailed(cause: string, message: string): this {
    this.add('WORKFLOW_TASK_FAILED', { workflowTaskFailedEventAttributes: { cause, failure: { message } } });
    return this;
  }

  completed(result: HandoffRunResult): this {
    this.add('WORKFLOW_EXECUTION_COMPLETED', {
      workflowExecutionCompletedEventAttributes: { result: payloads(result) },
    });
    return this;
  }

  failed(type: string, message: string): this {
    this.add('WORKFLOW_EXECUTION_FAILED', {
      workflowExecutionFailedEventAttributes: { failure: { message, applicationFailureInfo: { type } } },
    });
    return this;
  }

  continuedAsNew(): this {
    this.add('WORKFLOW_EXECUTION_CONTINUED_AS_NEW', { workflowExecutionContinuedAsNewEventAttributes: {} });
    return this;
  }
}
