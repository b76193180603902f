/**
 * How a chain is entered: start (and replay) options may not loosen the team's approval rules, and
 * a start at a gated agent waits for the approval a handoff into it needs, or is refused, as the
 * team's entry rules say. Whoever started the chain (the library, the CLI, the HTTP service, the
 * `temporal` CLI, another SDK), the rule is the same, because it is applied here.
 */
import { GatedEntryError, LooseningRefusedError } from '../../src/common/authority/errors';
import { judgeEntry, directEntries } from '../../src/common/authority/entry';
import { ENTRY_SOURCE } from '../../src/common/authority/policy';
import { PROTECTIVE_OPTIONS } from '../../src/common/authority/protective';
import { clipText } from '../../src/common/limits';
import { Patches } from '../../src/common/patches';
import { resolveRunOptions } from '../../src/common/options';
import type { ChainRun } from '../chain/step';
import { handOverDue } from '../chain/handOver';

/** What this run is: a continuation of the same chain (continue-as-new), and a specialist Temporal started as a child. */
export interface EntryFacts {
  /** The run continued as new from a run of this chain (Temporal records it; a start cannot claim it). */
  continued: boolean;
  /** The run is a child workflow (Temporal records its parent): a specialist a chain delegated to. */
  child: boolean;
  /** The request the chain starts with, shown to the approvers of a gated entry. */
  input: string;
  /** Whether the start carried a state to resume (a replay or a continued run). */
  resumed: boolean;
}

/** The entry approval's message: at most this many characters of the request. */
const ENTRY_MESSAGE_CHARS = 2000;

/**
 * Enter the chain: `entered` to run it, `paused` to continue as new while its entry still waits.
 * Throws {@link LooseningRefusedError} or {@link GatedEntryError}.
 */
export async function enterChain(
  run: Pick<ChainRun, 'chain' | 'effects' | 'desk'>,
  facts: EntryFacts,
): Promise<'entered' | 'paused'> {
  const { chain, desk } = run;
  const s = chain.state;
  if (!facts.continued) {
    // The run's own approval rules win over the team's; they may add approvals, never take them away.
    const loosened = PROTECTIVE_OPTIONS.approvals!.loosening(resolveRunOptions({}), s.options, {
      team: s.team,
      startedAt: s.controls?.startedAt ?? 0,
    });
    if (loosened) throw new LooseningRefusedError([loosened]);
  }
  if (facts.child) return 'entered';
  // A chain that continued as new while its entry waited is waiting for it still.
  let waiting = s.approvals.pending.find((p) => p.from === ENTRY_SOURCE);
  if (!waiting) {
    if (facts.resumed) return 'entered';
    const verdict = judgeEntry(s.team, s.options.approvals, s.agentId);
    if (verdict.kind === 'enter') return 'entered';
    if (verdict.kind === 'refuse') throw new GatedEntryError(s.agentId, verdict.reason, verdict.entries);
    waiting = desk.open(
      { from: ENTRY_SOURCE, to: s.agentId, message: clipText(facts.input, ENTRY_MESSAGE_CHARS) },
      verdict.policy,
    );
  }
  // The wait hands over once `continueAsNewAfterEvents` more events arrive than its run began it with.
  const since = run.effects.patched(Patches.ENTRY_WAIT_HANDS_OVER) ? run.effects.historyLength() : undefined;
  const record = await desk.wait(waiting.handoffId, () => handOverDue(run, false, since));
  if (!record) return 'paused';
  if (record.outcome === 'approved' || (record.outcome === 'timed_out' && record.onTimeout === 'approve'))
    return 'entered';
  const why =
    record.outcome === 'rejected'
      ? `its entry was rejected by ${clipText(record.approver ?? 'an approver', 100)}${record.reason ? ` (${clipText(record.reason, 200)})` : ''}`
      : `nobody approved its entry within ${String(record.timeout)}`;
  throw new GatedEntryError(s.agentId, why, directEntries(s.team));
}
