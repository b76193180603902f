/** Tool-call arguments an approver gives on the command line or at a prompt: a JSON object of the fields to change. */
import { argumentsObject } from '../client/pending';
import type { PendingApproval } from '../common/types';
import { UsageError } from './args';

/** Edited tool-call arguments given as JSON text (`--args`, or typed at a prompt): a JSON object, or a {@link UsageError} naming `flag`. */
export function argumentsOption(flag: string, raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new UsageError(
      `${flag} must be a JSON object of the tool's arguments, e.g. {"orderId":"A1"}; got text that is not JSON (${(err as Error).message})`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const got = Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`;
    throw new UsageError(`${flag} must be a JSON object of the tool's arguments, e.g. {"orderId":"A1"}; got ${got}`);
  }
  return value as Record<string, unknown>;
}

/** The arguments a tool call runs with when an approver changes some of its fields, and what to say about it. */
export interface MergedArguments {
  arguments: Record<string, unknown>;
  /** The call the changes were made to: a decision for it is refused if the call changed since. */
  callHash?: string;
  /** `(changed amount; the other fields as the model gave them)`. */
  note: string;
}

/**
 * `changes` merged onto the model's arguments of the tool call `approvalId` (or the only one
 * waiting), from the workflow's own values, so fields hidden as sensitive keep their real values.
 * Without such a call (a handoff, several waiting, none), `changes` go as they are and the decision
 * is refused or taken as the run sees fit.
 */
export function mergeOntoWaiting(
  waiting: PendingApproval[],
  approvalId: string | undefined,
  changes: Record<string, unknown>,
): MergedArguments {
  const target =
    approvalId !== undefined
      ? waiting.find((p) => p.handoffId === approvalId)
      : waiting.length === 1
        ? waiting[0]
        : undefined;
  if (!target?.tool) return { arguments: changes, note: '' };
  const model = argumentsObject(target.tool.arguments);
  const callHash = target.tool.callHash;
  if (!model)
    return { arguments: changes, callHash, note: "(the model's arguments were not a JSON object: yours replace them)" };
  const changed = Object.keys(changes).filter((k) => JSON.stringify(changes[k]) !== JSON.stringify(model[k]));
  const kept = Object.keys(model).filter((k) => !(k in changes));
  const what = changed.length > 0 ? `changed ${changed.join(', ')}` : 'nothing changed';
  return {
    arguments: { ...model, ...changes },
    callHash,
    note: `(${what}${kept.length > 0 ? `; ${kept.join(', ')} as the model gave ${kept.length === 1 ? 'it' : 'them'}` : ''})`,
  };
}
