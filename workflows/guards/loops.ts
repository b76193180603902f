/**
 * Loop detection: a handoff that repeats one of the last `loopWindow` handoffs with the same
 * context (from, to, message, input and state update), or the fourth hop of A → B → A → B with no
 * tool run and no delegation answered since the first. Fails with `HandoffLoopDetectedError`, or
 * under `onLoop: 'refuse'` tells the model, at most `maxLoopRefusals` times.
 */
import type { ControlEvent } from '../../src/common/controls';
import { HandoffLoopDetectedError } from '../../src/common/modelBehaviorErrors';
import type { HandoffResult } from '../../src/common/handoff';
import type { HandoffRecord } from '../../src/common/run';
import type { ChainState } from '../../src/common/state';
import { CONTINUE } from '../chain/verdict';
import type { Guard } from './guard';

type Loop = { pattern: 'repeat' | 'oscillation'; cycle: string[] };

export const loopGuard: Guard = {
  name: 'loops',
  beforeHandoff(s, h) {
    const c = s.controls;
    if (!c || s.options.loopWindow <= 0) return CONTINUE;
    const loop = repeated(s, h) ?? oscillating(s, h);
    if (!loop) return CONTINUE;
    const refuse = s.options.onLoop === 'refuse' && c.loopRefusals < s.options.maxLoopRefusals;
    const control: ControlEvent = { kind: 'loop_detected', from: h.from, to: h.to, ...loop, refused: refuse };
    if (!refuse)
      return { kind: 'fail', error: new HandoffLoopDetectedError(h.from, h.to, loop.cycle, loop.pattern), control };
    const why =
      loop.pattern === 'repeat'
        ? `the same handoff to ${h.to} with the same message was made already`
        : `the chain keeps bouncing between ${h.from} and ${h.to} without running any tool`;
    return {
      kind: 'retry',
      control,
      message: `Not handed off: it would be a loop (${loop.cycle.join(' → ')}): ${why}. Answer the request yourself, or do something different: call a tool, or hand off to another agent with new information.`,
    };
  },
};

/** The same handoff, with the same context, among the last `loopWindow` ones. */
function repeated(s: ChainState, h: HandoffResult): Loop | undefined {
  const recent = s.chain.slice(-s.options.loopWindow);
  const sig = signature(h);
  const i = recent.findIndex((r) => signature(r) === sig);
  if (i < 0) return undefined;
  return { pattern: 'repeat', cycle: [recent[i]!.from, ...recent.slice(i).map((r) => r.to), h.to] };
}

/** x → y, y → x, x → y and now y → x, with no progress since the first of them. */
function oscillating(s: ChainState, h: HandoffResult): Loop | undefined {
  const n = s.chain.length;
  const c = s.controls!;
  if (n < 3 || c.progressAtHandoff.length < n) return undefined;
  const [a, b, d] = [s.chain[n - 3]!, s.chain[n - 2]!, s.chain[n - 1]!];
  const [x, y] = [a.from, a.to];
  const hops = [a, b, d, h].map((r) => `${r.from}>${r.to}`).join(' ');
  if (x === y || hops !== `${x}>${y} ${y}>${x} ${x}>${y} ${y}>${x}`) return undefined;
  if (c.progress > c.progressAtHandoff[n - 3]!) return undefined;
  return { pattern: 'oscillation', cycle: [x, y, x, y, x] };
}

/** What makes two handoffs the same: the edge and everything the target is given. */
function signature(h: Pick<HandoffRecord, 'from' | 'to' | 'message' | 'input' | 'update'>): string {
  return JSON.stringify([h.from, h.to, h.message.trim(), h.input ?? null, h.update ?? null]);
}
