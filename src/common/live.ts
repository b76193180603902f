/**
 * Live chains: steering messages and interrupts sent to a running chain or conversation, what they
 * record, and their errors. Plain JSON; workflow-safe (no I/O).
 */
import { isRecord, nonEmptyString, shape, shown } from './check';
import { UserError } from './errors';
import { shapeOver } from './jsonShape';
import { bytesOver, charsOver, jsonOver, LIMITS, type SizeProblem } from './limits';

/** Input of the `steer` update: a user message for a running chain, applied at its next step. */
export interface SteerInput {
  /** The message, as the model will read it (a user message). */
  text: string;
  /** Who sends it (a person's or a service's name), recorded with it. */
  by: string;
  /**
   * Stop the model call under way at once (its text is dropped) and ask again with this message,
   * rather than waiting for the call to end.
   * @default false
   */
  interrupt?: boolean;
}

/** What the `steer` update answers: the message's id, and whether it stopped a model call. */
export interface SteerReceipt {
  steerId: string;
  /** Whether a model call under way was stopped for it (`interrupt: true` while the model was writing). */
  interrupted: boolean;
  /** Steering messages waiting for the chain's next step, this one included. */
  waiting: number;
}

/** A steering message waiting for the chain's next step. */
export interface SteerMessage {
  id: string;
  text: string;
  by: string;
  /** Workflow time it arrived, ISO 8601. */
  at: string;
  interrupt: boolean;
}

/**
 * What the `batonLive` memo records (every upsert is a history event the audit reads): a steering
 * message applied, a model call interrupted, what a conversation's mid-turn policy did to a
 * message, and a hand-back between turns.
 */
export type LiveRecord =
  | {
      type: 'steered';
      steerId: string;
      by: string;
      text: string;
      chars: number;
      agent: string;
      interrupt: boolean;
      at: string;
      receivedAt: string;
      turn?: number;
    }
  | { type: 'interrupted'; agent: string; call: string; by: string; at: string; turn?: number }
  | { type: 'message_rejected'; turn: number; idempotencyKey: string; at: string }
  | { type: 'message_interrupted'; turn: number; idempotencyKey: string; at: string }
  | { type: 'turn_rolled_back'; turn: number; forIdempotencyKey: string; at: string }
  | { type: 'handed_back'; afterTurn: number; from: string; to: string; returnTo: string; at: string };

/** Problems with a steering message (its shape), each naming what would be valid. */
export function steerProblems(value: unknown): string[] {
  if (!isRecord(value))
    return [
      `a steering message must be an object {"text": string, "by": string, "interrupt"?: boolean}, got ${shown(value)}`,
    ];
  const problems = shape(
    {
      text: nonEmptyString,
      by: nonEmptyString,
      interrupt: (v, key) => (typeof v === 'boolean' ? [] : [`"${key}" must be true or false, got ${shown(v)}`]),
    },
    ['interrupt'],
  )(value, 'steer');
  if (typeof value.by === 'string' && value.by.trim() === '')
    problems.push('"steer.by" must name who sends the message');
  return problems;
}

/** Sizes of a steering message over their limits. */
export function steerSizes(value: unknown): SizeProblem[] {
  const shape = shapeOver('steer', value);
  if (shape.length > 0) return shape;
  if (!isRecord(value)) return jsonOver('steer', value, LIMITS.messageBytes);
  const fields = [
    ...bytesOver('steer.text', value.text, LIMITS.messageBytes),
    ...charsOver('steer.by', value.by, LIMITS.approverChars),
  ];
  return fields.length > 0 ? fields : jsonOver('steer', value, LIMITS.messageBytes + 4 * LIMITS.approverChars + 64);
}

/** A steering message the chain cannot take: it is not running, or too many wait already. */
export class SteeringRefusedError extends UserError<{ workflowId: string }> {
  declare readonly workflowId: string;
  constructor(workflowId: string, why: string) {
    super(`Chain ${workflowId} refused the steering message: ${why}`, { workflowId });
  }
}
