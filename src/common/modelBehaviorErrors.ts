/**
 * The errors of a model that did something the run cannot accept ({@link ModelBehaviorError}): a
 * handoff to a target it may not reach or in a loop, an empty answer or one that does not match the
 * agent's output type, a delegation deeper than allowed. They cross the workflow boundary as the
 * rest of `errors.ts` do; a used-up budget's errors are in `budgetErrors.ts`.
 *
 * Workflow-safe: no I/O.
 */
import { ModelBehaviorError } from './errors';

/** A model asked to hand off to an agent that is not registered or not allowed for it. */
export class HandoffTargetNotFoundError extends ModelBehaviorError<{ from: string; to: string; available: string[] }> {
  declare readonly from: string;
  declare readonly to: string;
  declare readonly available: string[];
  constructor(from: string, to: string, available: string[]) {
    super(
      `Agent "${from}" tried to hand off to "${to}", but it is not a registered target. ` +
        `Available: ${available.length > 0 ? available.join(', ') : '(none)'}`,
      { from, to, available },
    );
  }
}

/**
 * A handoff that repeats one of the last handoffs with the same context (`pattern: 'repeat'`), or
 * bounces between two agents with no progress (`'oscillation'`); `cycle` is the agents in order.
 */
export class HandoffLoopDetectedError extends ModelBehaviorError<{
  from: string;
  to: string;
  cycle: string[];
  pattern: 'repeat' | 'oscillation';
}> {
  declare readonly from: string;
  declare readonly to: string;
  declare readonly cycle: string[];
  declare readonly pattern: 'repeat' | 'oscillation';
  constructor(from: string, to: string, cycle: string[], pattern: 'repeat' | 'oscillation') {
    const what =
      pattern === 'repeat'
        ? 'repeats an earlier handoff with the same context'
        : 'bounces between two agents with no tool run in between';
    super(`Handoff loop detected: ${from} → ${to} ${what} (cycle: ${cycle.join(' → ')})`, { from, to, cycle, pattern });
  }
}

/** A model answered with nothing (no text, no tool call) again after being asked to answer properly. */
export class EmptyOutputError extends ModelBehaviorError<{ agent: string; attempts: number }> {
  declare readonly agent: string;
  declare readonly attempts: number;
  constructor(agent: string, attempts: number) {
    super(
      `Agent "${agent}" answered with empty output ${attempts} time(s) in a row; set onEmptyOutput: "accept" to allow it`,
      { agent, attempts },
    );
  }
}

/** A final answer still did not match the agent's `outputType` after `maxOutputRetries` tries. */
export class OutputValidationError extends ModelBehaviorError<{ agent: string; problem: string; attempts: number }> {
  declare readonly agent: string;
  declare readonly problem: string;
  declare readonly attempts: number;
  constructor(agent: string, problem: string, attempts: number) {
    super(`Agent "${agent}" answered ${attempts} time(s) without matching its output type: ${problem}`, {
      agent,
      problem,
      attempts,
    });
  }
}

/** A specialist would delegate deeper than `maxDelegationDepth` allows. */
export class DelegationDepthExceededError extends ModelBehaviorError<{ agent: string; depth: number; limit: number }> {
  declare readonly agent: string;
  declare readonly depth: number;
  declare readonly limit: number;
  constructor(agent: string, depth: number, limit: number) {
    super(`Agent "${agent}" would delegate at depth ${depth}, past maxDelegationDepth (${limit})`, {
      agent,
      depth,
      limit,
    });
  }
}
