/**
 * What the signed-decision tests share: the `baton` commands they run in this process (audit,
 * approve, keygen), decisions signed for a waiting approval, and the refusal of one sent as an update.
 */
import { expect } from 'vitest';
import type { BatonRun } from '../../src';
import { decideHandoffUpdate, SignatureRefusedError, type PendingApproval } from '../../src/workflow';
import { signDecision } from '../../src/client/signing';
import { toBatonError } from '../../src/client';
import { decideCommand } from '../../src/cli/approvals';
import { auditCommand } from '../../src/cli/audit';
import type { Command } from '../../src/cli/context';
import { keygenCommand } from '../../src/cli/keygen';
import type { keys } from '../helpers/signing';

const COMMANDS: Record<string, Command> = {
  audit: auditCommand,
  approve: decideCommand('approve'),
  keygen: keygenCommand,
};

/**
 * A `baton` command, run in this process against the server at `address` (test/cli runs the
 * command as a process of its own); resolves with its exit code and output.
 */
export async function batonCommand(
  address: string,
  [name, ...args]: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  process.env.TEMPORAL_ADDRESS = address;
  const out = { stdout: '', stderr: '' };
  const code = await COMMANDS[name!]!.run(args, {
    out: (line) => (out.stdout += `${line}\n`),
    err: (line) => (out.stderr += `${line}\n`),
    interrupted: new Promise(() => undefined),
  });
  return { code, ...out };
}

/** The refusal of a decision sent as an update. */
export async function refusal(run: BatonRun, decision: Record<string, unknown>): Promise<SignatureRefusedError> {
  const err = toBatonError(
    await run.handle.executeUpdate(decideHandoffUpdate, { args: [decision as never] }).then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  expect(err).toBeInstanceOf(SignatureRefusedError);
  return err as SignatureRefusedError;
}

/** `decision` on the approval `waiting` in `run`, signed by `signer` (at `now`, if given). */
export async function signed(
  signer: typeof keys.alice.signer,
  run: BatonRun,
  waiting: PendingApproval,
  decision: { approver: string; decision: 'approve' | 'reject'; arguments?: Record<string, unknown> },
  now?: number,
) {
  return signDecision(signer, {
    workflowId: waiting.workflowId ?? run.workflowId,
    waiting,
    decision,
    ...(now !== undefined ? { now } : {}),
  });
}
