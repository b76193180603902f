/**
 * `--on-behalf-of <approver> --delegation <file|grant>`: deciding for another approver's slot of a
 * quorum or staged approval with the grant that gives it (docs/approvals.md, "Delegation").
 */
import fs from 'node:fs';
import { UsageError } from './args';

/** A JWS compact serialization: three base64url parts. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The flags' definitions, for `parse`. */
export const DELEGATION_FLAGS = {
  'on-behalf-of': { type: 'string' },
  delegation: { type: 'string' },
} as const;

/** The help lines of the flags. */
export const DELEGATION_HELP = `  --on-behalf-of <approver>
                      a quorum or staged approval: decide for this approver's slot, recorded as
                      "<--as> for <approver>"; needs --delegation
  --delegation <file|grant>
                      the grant giving --as that slot (a JWS signed by the slot's owner or an
                      operator), or a file holding it; the chain checks it against the keys it trusts`;

/**
 * The decision's `onBehalfOf` and `delegation` from the flags: both or neither; the grant read
 * from a file when the value names one.
 */
export function delegationFromFlags(values: { 'on-behalf-of'?: string; delegation?: string }): {
  onBehalfOf?: string;
  delegation?: string;
} {
  const slot = values['on-behalf-of'];
  const given = values.delegation;
  if (slot === undefined && given === undefined) return {};
  if (slot === undefined)
    throw new UsageError('--delegation goes with --on-behalf-of <approver>, the slot the grant gives');
  if (slot.trim() === '') throw new UsageError('--on-behalf-of must name the approver whose slot is decided');
  if (given === undefined || given.trim() === '')
    throw new UsageError(
      `--on-behalf-of ${slot} needs --delegation <file|grant>: the grant, signed by ${slot} or an operator, that gives you that slot`,
    );
  return { onBehalfOf: slot, delegation: grantOf(given.trim()) };
}

function grantOf(value: string): string {
  if (COMPACT_JWS.test(value) && !fs.existsSync(value)) return value;
  let text: string;
  try {
    text = fs.readFileSync(value, 'utf8').trim();
  } catch (err) {
    throw new UsageError(
      `--delegation ${value}: neither a grant (a JWS compact serialization, header.payload.signature) nor a readable file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  if (!COMPACT_JWS.test(text))
    throw new UsageError(
      `--delegation ${value}: the file does not hold a grant (a JWS compact serialization, header.payload.signature, as signDelegation writes)`,
    );
  return text;
}
