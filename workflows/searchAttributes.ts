/**
 * A run's search-attribute upserts, one command per workflow activation: each
 * `UpsertWorkflowSearchAttributes` command is an action on Temporal Cloud, and a step of a chain
 * writes its status, its agent and what waits for approval in separate calls. Runs with
 * {@link Patches.SEARCH_ATTRIBUTES_PER_TASK} have the upserts of an activation merged into one
 * command where the last of them stood (a later value of an attribute wins, as it would have),
 * by {@link mergeUpserts} as the activation concludes; a run recorded before it writes each, as its
 * code did.
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { coresdk } from '@temporalio/proto';
import { upsertSearchAttributes } from '@temporalio/workflow';
import { Patches } from '../src/common/patches';
import { hasPatch } from './patches';

/** Where a run keeps its decision: a global of its own (baton's modules are shared by every run). */
const DECIDED = '__batonAttributesPerTask';

interface RunGlobals {
  [DECIDED]?: boolean;
}

/** Upsert `pairs`: the only way baton's workflow code writes search attributes. */
export function upsertAttributes(pairs: SearchAttributeUpdatePair[]): void {
  const run = globalThis as RunGlobals;
  run[DECIDED] ??= hasPatch(Patches.SEARCH_ATTRIBUTES_PER_TASK);
  upsertSearchAttributes(pairs);
}

type Command = coresdk.workflow_commands.IWorkflowCommand;

/** An activation's commands with its search-attribute upserts merged into the last of them, in a run that has the patch. */
export function mergeUpserts(commands: Command[]): Command[] {
  if (!(globalThis as RunGlobals)[DECIDED]) return commands;
  const upserts = commands.filter((c) => c.upsertWorkflowSearchAttributes);
  if (upserts.length < 2) return commands;
  const last = upserts[upserts.length - 1]!;
  const indexedFields = Object.assign(
    {},
    ...upserts.map((c) => c.upsertWorkflowSearchAttributes?.searchAttributes?.indexedFields ?? {}),
  ) as Record<string, unknown>;
  const merged: Command = {
    ...last,
    upsertWorkflowSearchAttributes: { ...last.upsertWorkflowSearchAttributes, searchAttributes: { indexedFields } },
  } as Command;
  return commands.filter((c) => !c.upsertWorkflowSearchAttributes || c === last).map((c) => (c === last ? merged : c));
}
