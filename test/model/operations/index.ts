/**
 * Every operation of the harness, by group. A capability adds its operations in a file of its own
 * here and lists them below (see ../README.md).
 */
import type { AnyOperation } from '../harness';
import { approvalOperations } from './approvals';
import { archiveOperations } from './archive';
import { authorityOperations } from './authority';
import { brokerOperations } from './broker';
import { chainOperations } from './chain';
import { controlOperations } from './controls';
import { conversationOperations } from './conversation';
import { deployOperations } from './deploy';
import { escalationOperations } from './escalations';
import { eventOperations } from './events';
import { faultOperations } from './faults';
import { httpOperations } from './http';
import { inboxOperations } from './inbox';
import { jwksOperations } from './jwks';
import { migrateOperations } from './migrate';
import { notificationOperations } from './notifications';
import { operatorPasskeyOperations } from './operatorPasskeys';
import { passkeyOperations } from './passkeys';
import { policyOperations } from './policy';
import { protocolOperations } from './protocols';
import { quorumOperations } from './quorum';
import { questionOperations } from './questions';
import { reportOperations } from './reports';
import { remoteOperations } from './remote';
import { tenantOperations } from './tenants';
import { uiStreamOperations } from './uiStream';

// One group a line, so a capability's line merges beside the others.
export const OPERATIONS: AnyOperation[] = [
  ...chainOperations,
  ...approvalOperations,
  ...conversationOperations,
  ...controlOperations,
  ...deployOperations,
  ...faultOperations,
  ...migrateOperations,
  ...httpOperations,
  ...protocolOperations,
  ...reportOperations,
  ...uiStreamOperations,
  ...archiveOperations,
  ...authorityOperations,
  ...remoteOperations,
  ...notificationOperations,
  ...inboxOperations,
  ...brokerOperations,
  ...eventOperations,
  ...tenantOperations,
  ...quorumOperations,
  ...questionOperations,
  ...policyOperations,
  ...passkeyOperations,
  ...jwksOperations,
  ...operatorPasskeyOperations,
  ...escalationOperations,
];

const byName = new Map(OPERATIONS.map((op) => [op.name, op]));

/** The operation named `name`; throws naming the known ones when there is none (a regression case from an older harness). */
export function operationNamed(name: string): AnyOperation {
  const op = byName.get(name);
  if (!op) throw new Error(`no operation "${name}" (known: ${[...byName.keys()].join(', ')})`);
  return op;
}
