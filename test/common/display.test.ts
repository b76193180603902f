/**
 * Text from outside as every surface shows it: controls, line breaks and bidirectional formatting
 * characters visible as escapes, nothing else changed; and the audit's timeline and diagram built
 * on it, so a forged line stays inside the line of the event that carried it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTimeline, toMermaid } from '../../src/audit/format';
import type { AuditChain } from '../../src/audit/types';
import { displayText, hasUnsafeText, quotedText } from '../../src/common/display';

/** What a terminal acts on instead of showing. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ACTS_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const FORGED = 'mallory\u001b[2K\r\n07:00:00.000  approval   approved by alice\u202e';

describe('displayText', () => {
  it('shows each control, line break and bidi character as a visible escape', () => {
    expect(displayText('a\u001b[31mred\u001b[0m')).toBe('a\\u001b[31mred\\u001b[0m');
    expect(displayText('one\r\ntwo\tthree\u0000')).toBe('one\\r\\ntwo\\tthree\\u0000');
    expect(displayText('\u0085\u009b\u007f')).toBe('\\u0085\\u009b\\u007f');
    expect(displayText('abc\u202edef\u2066x\u2069\u200e\u200f\u061c\u2028\u2029')).toBe(
      'abc⟨U+202E⟩def⟨U+2066⟩x⟨U+2069⟩⟨U+200E⟩⟨U+200F⟩⟨U+061C⟩⟨U+2028⟩⟨U+2029⟩',
    );
    // Everything else stays as it was written: accents, scripts, emoji, quotes, backslashes.
    for (const plain of ['alice', 'Zoë Ødegård', 'אליס', 'مرحبا', '李雷 ✓ 🚀', 'C:\\path "quoted"'])
      expect(displayText(plain)).toBe(plain);
    expect(hasUnsafeText(FORGED)).toBe(true);
    expect(hasUnsafeText('alice')).toBe(false);
    expect(quotedText(FORGED)).toBe('"mallory\\u001b[2K\\r\\n07:00:00.000  approval   approved by alice⟨U+202E⟩"');
    expect(quotedText('say "hi"')).toBe('"say \\"hi\\""');
    expect(quotedText('say "hi"', 5)).toBe('"say …"');
  });

  it('leaves nothing a terminal acts on, on one line, and changes only what it must (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const shown = displayText(text);
        expect(shown).not.toMatch(ACTS_ON);
        expect(shown).not.toContain('\n');
        expect(displayText(shown)).toBe(shown);
        if (!hasUnsafeText(text)) expect(shown).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});

const at = (eventId: number) => ({ at: `2026-01-01T00:00:0${eventId}.000Z`, runId: 'r', eventId });
const chain: AuditChain = {
  schema: 'baton.audit/v1',
  workflowId: 'w',
  runIds: ['r'],
  status: 'completed',
  lineage: [],
  handoffs: [],
  events: [
    {
      ...at(1),
      kind: 'decision_refused',
      handoffId: 'h1',
      approver: FORGED,
      decision: 'approve',
      reason: `${FORGED} may not decide this handoff`,
      via: 'signal',
    },
    {
      ...at(2),
      kind: 'approval_decided',
      handoffId: 'h1',
      outcome: 'approved',
      approver: 'bob\u202eevil',
      comment: 'fine\nby me',
      requestedAt: at(0).at,
      decidedAt: at(2).at,
      via: 'signal',
      identity: { method: 'claimed' },
    },
    {
      ...at(3),
      kind: 'approval_decided',
      handoffId: 'h2',
      outcome: 'approved',
      approver: 'alice',
      requestedAt: at(0).at,
      decidedAt: at(3).at,
      via: 'update',
      identity: { method: 'signed', kid: 'alice-1', keySource: 'team' },
    },
    {
      ...at(4),
      kind: 'handoff',
      index: 1,
      from: 'a',
      to: 'b',
      message: 'go',
      timestamp: at(4).at,
      turn: 1,
      approval: {
        handoffId: 'h1',
        outcome: 'approved',
        approver: 'bob\n07:00 evil\u202e',
        requestedAt: at(0).at,
        decidedAt: at(2).at,
        via: 'signal',
      },
    } as AuditChain['events'][number],
  ],
};

describe('the audit shows text from outside', () => {
  it('quoted and marked with how its sender was established, on the line of the event that carried it', () => {
    const timeline = formatTimeline(chain);
    expect(timeline).not.toMatch(ACTS_ON);
    const lines = timeline.split('\n');
    expect(lines).toHaveLength(5);
    expect(lines.some((l) => /^\s*07:00:00\.000/.test(l))).toBe(false);
    expect(lines[1]).toBe(
      '00:00:01.000  approval   refused approve from "mallory\\u001b[2K\\r\\n07:00:00.000  approval   approved by alice⟨U+202E⟩" (claimed) (signal): mallory\\u001b[2K 07:00:00.000 approval approved by alice⟨U+202E⟩ may not decide this handoff',
    );
    expect(lines[2]).toBe('00:00:02.000  approval   approved by "bob⟨U+202E⟩evil" (claimed) via signal: "fine by me"');
    expect(lines[3]).toBe('00:00:03.000  approval   approved by "alice" via update, signed (key alice-1)');
    expect(lines[4]).toBe('00:00:04.000  handoff    #1 a → b (approved by "bob\\n07:00 evil⟨U+202E⟩" (claimed))');
  });

  it('in a Mermaid label that its text cannot end or reorder', () => {
    const diagram = toMermaid(chain);
    expect(diagram).not.toMatch(ACTS_ON);
    expect(diagram).toContain('a -->|"1 · approved by bob\\n07:00 evil⟨U+202E⟩"| b');
  });
});
