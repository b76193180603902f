/**
 * Chains and the model's answers: start a chain (with options that make it continue as new every
 * few steps, require signed decisions, allow one handoff, or retry invalid handoffs), and answer a
 * waiting model call with text, a handoff (valid or not), tool calls (with and without approval),
 * a delegation, a handoff beside a tool call, or a failure for good (the provider down).
 */
import fc from 'fast-check';
import type { RunOptions } from '../../../src';
import { follow } from '../follow';
import { operation, type Harness } from '../harness';
import { pick, ref, rootOf, type ModelState, type RootModel } from '../model';
import type { PuppetAnswer, PuppetCall } from '../protocol';
import { START_AGENTS, type AgentId } from '../team';

/** What a chain's options are made of, by name. */
export const PRESETS = {
  plain: {},
  /** Continue as new at 20 events (the least baton allows): every step or two. */
  tiny_can: { continueAsNewAfterEvents: 20 },
  signed: { requireSignature: true },
  tight: { maxHandoffs: 1 },
  retry_invalid: { onInvalidHandoff: 'retry' },
} satisfies Record<string, RunOptions>;
export type Preset = keyof typeof PRESETS;

/** Options every chain of a sequence gets: a stranded step gives up soon. */
export const BASE_OPTIONS: RunOptions = { teamMismatchTimeout: '3 seconds' };

/** Roots a sequence keeps open at once, and starts in all. */
const MAX_OPEN = 3;
const MAX_ROOTS = 5;

/** The context a root starts with: unique to it, with text a codec or a copy could mangle. */
export function contextOf(m: ModelState, id: string): Record<string, unknown> {
  return { tenant: m.tag, root: id, n: m.next, note: 'ünïcode ✓ "quoted"', nested: { list: [1, 2, 3] } };
}

/** Whether another root may start. */
export function roomForRoot(m: ModelState): boolean {
  return m.roots.length < MAX_ROOTS && m.roots.filter((r) => r.status === 'open').length < MAX_OPEN;
}

/**
 * What a root may be told while two teams serve its queue side by side: its steps may land on the
 * other team's worker again and again, past the harness's seconds-long `teamMismatchTimeout`. A
 * chain then fails with `TeamMismatchError`; a conversation's turn is stranded, its callers told.
 */
export function sideBySideRefusal(kind: RootModel['kind']): 'TeamMismatchError' | 'TurnStrandedError' {
  return kind === 'chain' ? 'TeamMismatchError' : 'TurnStrandedError';
}

/** A new root in the model. */
export function newRoot(m: ModelState, kind: RootModel['kind'], agent: AgentId, options: RunOptions): RootModel {
  const id = `${m.tag}-${kind === 'chain' ? 'c' : 'v'}${m.roots.length + 1}`;
  const root: RootModel = {
    id,
    kind,
    agent,
    context: contextOf(m, id),
    startOptions: options,
    options,
    startedOn: m.version,
    status: 'open',
    approvals: [],
    provoked: new Set(m.deployed === 'side_by_side' ? [sideBySideRefusal(kind)] : []),
    decided: [],
    asked: new Map(),
    messages: [],
    replays: 0,
    replayedRuns: [],
  };
  m.roots.push(root);
  return root;
}

/** Answer a waiting puppet call, and remember the answer. */
export function answer(h: Harness, call: PuppetCall, a: PuppetAnswer): void {
  const root = rootOf(h.model, call.workflowId);
  h.model.answers.push({ call, answer: a, root: root?.id ?? '' });
  h.system.hosts.answer(call.key, a);
}

/** The waiting call `n` picks, among those offering `tool` when given. */
export function callFor(m: ModelState, n: number, tool?: string): PuppetCall | undefined {
  return pick(
    m.calls.filter((c) => !tool || c.tools.some((t) => t.name === tool)),
    n,
  );
}

/** The waiting call `n` picks among those of root chains (a specialist's or a conversation's fail otherwise). */
function chainCall(m: ModelState, n: number): PuppetCall | undefined {
  return pick(
    m.calls.filter((c) => m.roots.some((r) => r.kind === 'chain' && r.id === c.workflowId)),
    n,
  );
}

/** Arguments of a call of `tool` as the called model's version of it requires. */
export function toolArgs(call: PuppetCall, tool: string, r: string, amount: number): Record<string, unknown> {
  const required = call.tools.find((t) => t.name === tool)?.required ?? [];
  return { ref: r, ...(tool !== 'lookup' ? { amount } : {}), ...(required.includes('region') ? { region: 'eu' } : {}) };
}

/** Failure types a handoff answer can lead to, by the root's options. */
function handoffRisks(root: RootModel | undefined, invalid: boolean): void {
  if (!root) return;
  root.provoked.add('HandoffLoopDetectedError');
  root.provoked.add('MaxHandoffsExceededError');
  if (invalid && root.options.onInvalidHandoff !== 'retry') root.provoked.add('HandoffTargetNotFoundError');
}

const words = fc.constantFrom(
  'Done.',
  'Here is the answer: 42.',
  'Refund issued — anything else?',
  'Ünïcode answer ✓ with "quotes"',
  'A longer answer that goes on for a while so that it streams in several pieces.',
);

export const chainOperations = [
  operation({
    name: 'start',
    group: 'chain',
    opens: true,
    weight: 10,
    params: fc.record({
      agent: fc.nat(),
      preset: fc.constantFrom<Preset>('plain', 'plain', 'tiny_can', 'tiny_can', 'signed', 'tight', 'retry_invalid'),
      follow: fc.boolean(),
    }),
    applies: (m) => roomForRoot(m),
    async run(h, p) {
      const m = h.model;
      const agent = pick(START_AGENTS, p.agent)!;
      const root = newRoot(m, 'chain', agent, { ...BASE_OPTIONS, ...PRESETS[p.preset] });
      const run = await h.baton.start(agent, `request ${ref(m, 'q')} for ${agent}`, {
        workflowId: root.id,
        context: root.context,
        ...root.options,
      });
      if (p.follow) root.follower = follow(run, h);
    },
  }),
  operation({
    name: 'answer_text',
    group: 'chain',
    weight: 6,
    params: fc.record({ call: fc.nat(), text: words }),
    applies: (m) => m.calls.length > 0,
    async run(h, p) {
      const call = callFor(h.model, p.call)!;
      answer(h, call, { text: `${p.text} [${ref(h.model, 'a')}]` });
    },
  }),
  operation({
    name: 'answer_handoff',
    group: 'chain',
    weight: 6,
    params: fc.record({
      call: fc.nat(),
      target: fc.nat(),
      invalid: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
    applies: (m, p) => callFor(m, p.call, 'handoff') !== undefined,
    async run(h, p) {
      const call = callFor(h.model, p.call, 'handoff')!;
      const targets = call.tools.find((t) => t.name === 'handoff')?.targets ?? [];
      const to = p.invalid ? 'nobody' : pick(targets, p.target)!;
      handoffRisks(rootOf(h.model, call.workflowId), p.invalid);
      answer(h, call, {
        toolCalls: [
          {
            id: ref(h.model, 'tc'),
            name: 'handoff',
            arguments: { to, message: `over to ${to} (${ref(h.model, 'h')})` },
          },
        ],
      });
    },
  }),
  operation({
    name: 'answer_tool',
    group: 'chain',
    weight: 8,
    params: fc.record({
      call: fc.nat(),
      tool: fc.constantFrom('lookup', 'refund', 'refund', 'payout'),
      amount: fc.integer({ min: 1, max: 500 }),
      twice: fc.boolean(),
    }),
    applies: (m, p) => callFor(m, p.call, p.tool) !== undefined,
    async run(h, p) {
      const call = callFor(h.model, p.call, p.tool)!;
      const calls = [
        { id: ref(h.model, 'tc'), name: p.tool, arguments: toolArgs(call, p.tool, ref(h.model, 'r'), p.amount) },
      ];
      // Two calls in one turn: one may wait for a person while the other runs.
      if (p.twice && call.tools.some((t) => t.name === 'lookup'))
        calls.push({
          id: ref(h.model, 'tc'),
          name: 'lookup',
          arguments: toolArgs(call, 'lookup', ref(h.model, 'r'), 0),
        });
      answer(h, call, { toolCalls: calls });
    },
  }),
  operation({
    name: 'answer_delegate',
    group: 'chain',
    weight: 3,
    params: fc.record({ call: fc.nat() }),
    applies: (m, p) => callFor(m, p.call, 'delegate') !== undefined,
    async run(h, p) {
      const call = callFor(h.model, p.call, 'delegate')!;
      const to = call.tools.find((t) => t.name === 'delegate')?.targets?.[0] ?? 'research';
      answer(h, call, {
        toolCalls: [
          {
            id: ref(h.model, 'tc'),
            name: 'delegate',
            arguments: { to, task: `look into ${ref(h.model, 't')}`, reason: 'it knows' },
          },
        ],
      });
    },
  }),
  operation({
    name: 'answer_handoff_and_tool',
    group: 'chain',
    weight: 2,
    params: fc.record({ call: fc.nat(), target: fc.nat() }),
    applies: (m, p) => callFor(m, p.call, 'handoff') !== undefined,
    async run(h, p) {
      const call = callFor(h.model, p.call, 'handoff')!;
      const targets = call.tools.find((t) => t.name === 'handoff')?.targets ?? [];
      const to = pick(targets, p.target)!;
      const tool = call.tools.find((t) => t.name === 'lookup' || t.name === 'refund')?.name;
      handoffRisks(rootOf(h.model, call.workflowId), false);
      answer(h, call, {
        toolCalls: [
          ...(tool
            ? [{ id: ref(h.model, 'tc'), name: tool, arguments: toolArgs(call, tool, ref(h.model, 'r'), 7) }]
            : []),
          {
            id: ref(h.model, 'tc'),
            name: 'handoff',
            arguments: { to, message: `with a tool, over to ${to} (${ref(h.model, 'h')})` },
          },
        ],
      });
    },
  }),
  operation({
    name: 'answer_fail',
    group: 'chain',
    weight: 2,
    params: fc.record({ call: fc.nat() }),
    applies: (m, p) => chainCall(m, p.call) !== undefined,
    async run(h, p) {
      // The provider is down past its retries: the chain fails, and a replay asks the model again.
      const call = chainCall(h.model, p.call)!;
      rootOf(h.model, call.workflowId)!.provoked.add('ModelCallFailedError');
      answer(h, call, { fail: `the model provider is down (${ref(h.model, 'f')})` });
    },
  }),
];
