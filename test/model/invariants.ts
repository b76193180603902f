/**
 * The invariants, checked after every step (`step`) or once the sequence has been driven to its
 * end (`end`, besides the step ones). Each pushes what it finds broken; none may be broken.
 * A new capability adds its own here (see README.md).
 */
import { isDeepStrictEqual } from 'node:util';
import { BATON_ERROR_TYPES, CONVERSATION_ERRORS } from '../../src/workflow';
import { readEffects } from './effects';
import { endInvariants } from './endInvariants';
import { endedMessageInvariants } from './endedMessages';
import { migrationInvariants } from './migrationInvariants';
import { archiveInvariants } from './operations/archive';
import { brokerInvariants } from './operations/broker';
import { remoteInvariants } from './operations/remote';
import { escalationInvariants } from './operations/escalations';
import { eventInvariants } from './operations/events';
import { policyInvariants } from './operations/policy';
import { policyExportInvariants } from './policyExport';
import { passkeyInvariants } from './passkeyInvariants';
import { jwksInvariants } from './operations/jwks';
import { broken, clip, type Harness, type Invariant } from './harness';
import { rootOf } from './model';
import { APPROVED_TOOLS, type EffectTool } from './team';
import { uiStreamInvariants } from './operations/uiStream';

/** Failures a conversation's message may end with besides the chain's typed errors. */
const MESSAGE_ERRORS = new Set(['ConversationBusyError', 'MessageRolledBackError', 'ConversationEndedError']);
/** A conversation's own typed errors (`TurnStrandedError` among them). */
const CONVERSATION_ERROR_TYPES = Object.keys(CONVERSATION_ERRORS);

const stepInvariants: Invariant[] = [
  {
    // Every chain and conversation that closed ended in a documented state: completed, a typed
    // failure the commands made possible, or (a conversation) ended when asked.
    name: 'ends-documented',
    when: 'step',
    async check(h) {
      for (const r of h.model.roots) {
        if (r.status === 'open' || r.judged) continue;
        r.judged = true;
        if (r.status === 'completed') continue;
        if (r.kind === 'conversation') {
          // A failed turn is its message's error; the conversation itself ends only when asked.
          if (r.status !== 'ended')
            broken(
              h,
              'ends-documented',
              `conversation ${r.id} ended ${r.failure ?? r.status}: ${clip(r.failureMessage, 300)}`,
            );
          else if (!r.ending) broken(h, 'ends-documented', `conversation ${r.id} ended without being asked to`);
          continue;
        }
        const typed =
          r.failure !== undefined && BATON_ERROR_TYPES.includes(r.failure) && r.failure !== 'UnexpectedWorkflowError';
        if (!typed || !r.provoked.has(r.failure!)) {
          broken(
            h,
            'ends-documented',
            `${r.kind} ${r.id} ended ${r.failure ?? r.status}${typed ? ', which nothing in the sequence could cause' : ', not a typed error a user is told'}: ${clip(r.failureMessage, 300)}`,
          );
        }
      }
    },
  },
  {
    // No approval is asked again once a person decided it, nor twice at once.
    name: 'asked-once',
    when: 'step',
    async check(h) {
      for (const r of h.model.roots) {
        for (const [subject, ids] of r.asked) {
          if (ids.size < 2) continue;
          const decided = r.decided.filter((d) => ids.has(d.approvalId));
          const waitingNow = r.approvals.filter((p) => ids.has(p.handoffId));
          if (decided.length > 0 || waitingNow.length > 1)
            broken(
              h,
              'asked-once',
              `${r.id}: "${clip(subject, 120)}" asked ${ids.size} times (${[...ids].join(', ')}), ${decided.length} decided`,
            );
        }
      }
    },
  },
  {
    // Side effects: one application per call (never under two keys), only after an approval where
    // the tool needs one, each with the context its chain started with.
    name: 'effects',
    when: 'step',
    async check(h) {
      const lines = readEffects(h.system.effectsFile);
      h.effects.push(...lines.slice(h.effectsRead).filter((e) => rootOf(h.model, e.workflowId)));
      h.effectsRead = lines.length;
      const keysByCall = new Map<string, Set<string>>();
      const appliedByKey = new Map<string, number>();
      for (const e of h.effects) {
        if (e.kind !== 'applied') continue;
        const root = rootOf(h.model, e.workflowId)!;
        const call = `${e.workflowId} ${e.toolCallId}`;
        keysByCall.set(call, (keysByCall.get(call) ?? new Set()).add(e.key));
        appliedByKey.set(e.key, (appliedByKey.get(e.key) ?? 0) + 1);
        if (!isDeepStrictEqual(e.context, root.context ?? {}))
          broken(
            h,
            'context-survives',
            `${e.tool} in ${e.workflowId} (run ${e.runId}${root.replays > 0 ? `, replayed ${root.replays} time(s)` : ''}) ran with context ${clip(e.context)}, not ${clip(root.context)}`,
          );
        if (
          APPROVED_TOOLS.includes(e.tool as EffectTool) &&
          !root.decided.some((d) => d.toolCallId === e.toolCallId && d.outcome === 'approved')
        ) {
          broken(
            h,
            'approved-before-run',
            `${e.tool} call ${e.toolCallId} in ${e.workflowId} ran without an approval the harness gave`,
          );
        }
      }
      for (const [call, keys] of keysByCall)
        if (keys.size > 1)
          broken(
            h,
            'effect-once',
            `tool call ${call} applied under ${keys.size} idempotency keys: ${[...keys].join(', ')}`,
          );
      for (const [key, n] of appliedByKey)
        if (n > 1) broken(h, 'effect-once', `idempotency key ${key} applied ${n} times`);
    },
  },
  {
    // The audit rebuilds the handoffs the `chain` query reports.
    name: 'audit-matches-query',
    when: 'step',
    async check(h) {
      for (const r of h.model.roots) {
        if (r.kind !== 'chain' || r.status !== 'open') continue;
        const [queried, audit] = await Promise.all([
          h.baton
            .getRun(r.id)
            .chain()
            .catch(() => undefined),
          h.baton.audit(r.id).catch(() => undefined),
        ]);
        if (!queried || !audit || audit.status !== 'running') continue;
        if (!isDeepStrictEqual(audit.handoffs, queried))
          broken(
            h,
            'audit-matches-query',
            `${r.id}: audit handoffs ${clip(audit.handoffs.map(brief))} ≠ chain query ${clip(queried.map(brief))}`,
          );
      }
    },
  },
  {
    // Every conversation message sent came back with a reply or a typed error.
    name: 'messages-answered',
    when: 'step',
    async check(h) {
      for (const r of h.model.roots) {
        for (const msg of r.messages) {
          if (msg.judged || (!msg.reply && !msg.error)) continue;
          msg.judged = true;
          const typed =
            msg.error && (BATON_ERROR_TYPES.includes(msg.error) || CONVERSATION_ERROR_TYPES.includes(msg.error));
          if (msg.error && !typed)
            broken(
              h,
              'messages-answered',
              `${r.id}: message ${msg.n} failed with ${msg.error}, not a typed error: ${clip(msg.errorMessage, 300)}`,
            );
          if (msg.error && typed && !MESSAGE_ERRORS.has(msg.error) && !r.provoked.has(msg.error))
            broken(
              h,
              'messages-answered',
              `${r.id}: message ${msg.n} failed with ${msg.error}, which nothing in the sequence could cause: ${clip(msg.errorMessage, 300)}`,
            );
        }
      }
    },
  },
];

function brief(x: { from: string; to: string; turn?: number }): string {
  return `${x.from}→${x.to}@${x.turn ?? '?'}`;
}

/** Every invariant, step ones first. */
export const INVARIANTS: Invariant[] = [
  // First: a call an approval's policy approved is approved for the effects invariant.
  ...escalationInvariants.filter((i) => i.when === 'step'),
  ...stepInvariants,
  ...migrationInvariants.filter((i) => i.when === 'step'),
  ...endInvariants,
  ...migrationInvariants.filter((i) => i.when === 'end'),
  ...uiStreamInvariants,
  ...archiveInvariants,
  ...remoteInvariants,
  ...brokerInvariants,
  ...eventInvariants,
  ...endedMessageInvariants,
  ...policyInvariants,
  ...policyExportInvariants,
  ...passkeyInvariants,
  ...jwksInvariants,
  ...escalationInvariants.filter((i) => i.when === 'end'),
];

/** Check the invariants of `when` (the step ones at the end too). */
export async function checkInvariants(h: Harness, when: 'step' | 'end'): Promise<void> {
  for (const inv of INVARIANTS) {
    if (inv.when === 'end' && when === 'step') continue;
    h.model.checks++;
    await inv.check(h);
  }
}
