/**
 * Human approval of handoffs: the policy that applies to an edge, as a guard that answers `wait`.
 * The waiting itself is the approval desk's (`chain/desk.ts`).
 */
import { resolveApprovalPolicy } from '../../src/common/authority/policy';
import { CONTINUE } from '../chain/verdict';
import type { Guard } from './guard';

/** The policy that applies to `from` → `to` (shared with the authority checks and the audit). */
export { resolveApprovalPolicy };

export const approvalGuard: Guard = {
  name: 'approvals',
  beforeHandoff(s, h) {
    const policy = resolveApprovalPolicy(s.team, s.options.approvals, h.from, h.to);
    return policy ? { kind: 'wait', policy } : CONTINUE;
  },
};
