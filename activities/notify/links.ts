/**
 * Signed one-time decision links: `<payload>.<mac>`, both base64url, the payload the JSON of a
 * {@link DecisionLink}, the MAC HMAC-SHA256 of the payload part under the secret the team and
 * `baton serve` share. A link decides exactly one approval one way as one identity; its id goes
 * into the decision it makes, and the approval takes one decision, so a second use is refused by
 * the chain itself, whatever the service remembers.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

/** What a link decides. */
export interface DecisionLink {
  /** The link's own id, recorded with the decision it makes. */
  id: string;
  /** The chain the approval waits in. */
  workflowId: string;
  approvalId: string;
  decision: 'approve' | 'reject';
  /** The identity the link was issued for: the decision's approver. */
  identity: string;
  /** Tool calls: the call the link was issued for; a changed call refuses it as stale. */
  callHash?: string;
  /** When the link stops working, ms since the epoch. */
  expiresAt: number;
}

/** Why a link is refused. */
export class LinkRefusedError extends Error {
  constructor(
    readonly problem: 'malformed' | 'forged' | 'expired',
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A signed link token for `link` (a fresh id when it has none). */
export function issueLink(secret: string, link: Omit<DecisionLink, 'id'> & { id?: string }): string {
  const payload = Buffer.from(JSON.stringify({ ...link, id: link.id ?? randomUUID() })).toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
}

/** The link `token` stands for, or a {@link LinkRefusedError} saying why it does not stand. */
export function verifyLink(secret: string, token: string, now = Date.now()): DecisionLink {
  const parts = token.split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1])
    throw new LinkRefusedError('malformed', 'this is not a baton decision link (expected <payload>.<signature>)');
  const [payload, given] = parts as [string, string];
  const expected = Buffer.from(mac(secret, payload));
  const got = Buffer.from(given);
  if (got.length !== expected.length || !timingSafeEqual(got, expected))
    throw new LinkRefusedError(
      'forged',
      "the link's signature does not match: it was altered or not issued by this team",
    );
  let link: DecisionLink;
  try {
    link = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as DecisionLink;
  } catch {
    throw new LinkRefusedError('malformed', "the link's payload is not JSON");
  }
  if (typeof link.expiresAt !== 'number' || link.expiresAt < now)
    throw new LinkRefusedError('expired', `the link expired at ${new Date(link.expiresAt).toISOString()}`);
  if (link.decision !== 'approve' && link.decision !== 'reject')
    throw new LinkRefusedError('malformed', 'the link decides neither approve nor reject');
  return link;
}

function mac(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}
