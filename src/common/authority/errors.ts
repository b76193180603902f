/**
 * The errors of authority over a chain: a start at an agent it may not enter, and start options
 * (or a replay's) that would loosen what the team requires.
 *
 * Workflow-safe: no I/O.
 */
import { UserError } from '../errors';

/**
 * A start at an agent the team does not let chains enter directly: a gated agent (a handoff into it
 * needs approval) under `entry.onGated: 'refuse'`, or an agent the team's `entry.agents` does not
 * list. `entries` are the agents a start may enter.
 */
export class GatedEntryError extends UserError<{ agent: string; reason: string; entries: string[] }> {
  declare readonly agent: string;
  declare readonly reason: string;
  declare readonly entries: string[];
  constructor(agent: string, reason: string, entries: string[]) {
    super(
      `A chain may not start at "${agent}": ${reason} (entries: ${entries.length > 0 ? entries.join(', ') : 'none'})`,
      { agent, reason, entries },
    );
  }
}

/**
 * Options that would loosen what protects a chain below what its team requires (or, for a
 * replay, what the chain ran under): each problem names the option and what is allowed
 * (docs/authority.md).
 */
export class LooseningRefusedError extends UserError<{ problems: string[] }> {
  declare readonly problems: string[];
  constructor(problems: string[]) {
    super(`Options refused, they would loosen what protects the chain: ${problems.join('; ')}`, { problems });
  }
}

/**
 * A policy update (`tightenPolicy`) that would loosen what a running chain needs: each problem names
 * the handoff or tool call that would need less approval, and what is allowed. Nothing of it applied.
 */
export class PolicyLoosenedError extends UserError<{ problems: string[] }> {
  declare readonly problems: string[];
  constructor(problems: string[]) {
    super(`Policy update refused, it would loosen what the chain needs: ${problems.join('; ')}`, { problems });
  }
}
