import { runningDiff } from './teamPolicy';
import { Baton } from '../client/baton';
import { chainRedaction } from '../client/sensitive';
import { redactDecisionRecord } from '../common/sensitive';
import { parse, UsageError } from './args';
import { connect } from './connect';
import type { Command } from './context';
import { argumentsOption, mergeOntoWaiting } from './edits';
import { formatDecision, formatPending } from './print';
import { decideBatchFile } from './inbox';
import { DELEGATION_FLAGS, DELEGATION_HELP, delegationFromFlags } from './delegationFlag';
import { cliSigner } from './signing';
import { TENANT_FLAG, tenantFromFlag } from './tenant';

export { argumentsOption } from './edits';

/** `baton pending`: every handoff and tool call waiting for approval, across chains. */
export const pendingCommand: Command = {
  synopsis: 'baton pending [--as <approver>] [--tenant <id>] [--team <module>] [--json]',
  summary: 'handoffs and tool calls waiting for approval, across chains',
  help: `Options:
  --as <approver> show the real values of sensitive tool arguments in the calls this approver may
                  decide (the policy names them, or names no approvers); "[redacted]" otherwise
  --tenant <id>   only the chains of this tenant (BatonTenant)
  --team <module> also list the running chains whose approval policy is looser than this team's
                  (baton team apply-policy applies it to them)
  --json          print the list as JSON (each with its approvalId; a tool call's arguments as an object)

Lists running chains whose handoffs or tool calls wait for a decision, oldest first, with how long
each has waited: chain, approval id, what waits. A tool call shows with its arguments (agent → tool
name {arguments}), those its tool declares sensitive as "[redacted]".`,
  async run(argv, { out }) {
    const { values, positionals } = parse(argv, {
      json: { type: 'boolean', default: false },
      as: { type: 'string' },
      team: { type: 'string' },
      ...TENANT_FLAG,
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    if (values.as !== undefined && values.as.trim() === '') throw new UsageError('--as must name an approver');
    const baton = await batonClient();
    const tenant = tenantFromFlag(values.tenant);
    const waiting = await baton.pending({
      ...(values.as ? { reveal: values.as } : {}),
      ...(tenant !== undefined ? { tenant } : {}),
    });
    if (values.json) out(JSON.stringify(waiting, null, 2));
    else if (waiting.length === 0) out('no handoff or tool call is waiting for approval');
    else for (const p of waiting) out(formatPending(p));
    if (values.team !== undefined && !values.json) await runningDiff(values.team, baton.taskQueue, false, out);
    return 0;
  },
};

/** `baton approve|reject <workflowId> [--id <approvalId>] --as <approver>`, and `--args` to approve a tool call with some of its arguments changed. */
export function decideCommand(decision: 'approve' | 'reject'): Command {
  const approve = decision === 'approve';
  const note = approve ? '--comment <text>' : '--reason <text>';
  return {
    synopsis: `baton ${decision} (<workflowId> [--id <approvalId>] | --batch <file|->) --as <approver> [${note}]${approve ? ` [--args '<json object>']` : ''} [--key <file>] [--on-behalf-of <approver> --delegation <file|grant>]`,
    summary: `${decision} a handoff or tool call waiting for approval`,
    help: `Options:
  --as <approver>     who decides (required; checked against the policy's approvers)
  --id <approvalId>   which waiting handoff or tool call (needed only when several wait in the chain;
                      \`baton pending\` lists the ids); --handoff <id> is the same
  ${note.padEnd(19)} ${approve ? 'a note kept with the approval' : 'why: the agent is told, and goes on; when the team defines rejectionReasons,\n                      one of their codes (the agent gets its code and label as JSON)'}${
    approve
      ? `
  --args <json>       a tool call only: run it with these fields changed, a JSON object merged onto
                      the model's arguments (the fields it names replace the model's, the others stay
                      as the model gave them), e.g. --args '{"amount":200}'; the result is checked
                      against the tool's parameters`
      : ''
  }
  --key <file>        sign the decision with this Ed25519 private key (PKCS#8 PEM or a JWK; or
                      BATON_SIGNING_KEY): the chain verifies it against the keys its team or run
                      trusts for the approver (docs/signatures.md)
  --batch <file|->    decide several similar waiting calls together: a JSON list of {workflowId,
                      approvalId, callHash?} (\`baton inbox --json\` lists them); each its own decision,
                      bound to its own call and signed on its own; an outcome per approval (--json)
  --kid <id>          the key id to sign under (or BATON_SIGNING_KID; default: the JWK's "kid", else
                      the key's thumbprint)
${DELEGATION_HELP}

Prints the recorded decision${approve ? ' (with --args, the arguments the call runs with and the fields changed)' : ''};
a decision that cannot apply (nothing waits, not an allowed approver, ${approve ? "arguments the tool's parameters\nrefuse, " : ''}a call that changed since) is refused with ApprovalRefusedError and exit code 1.`,
    async run(argv, { out }) {
      const { values, positionals } = parse(argv, {
        id: { type: 'string' },
        handoff: { type: 'string' },
        as: { type: 'string' },
        comment: { type: 'string' },
        reason: { type: 'string' },
        key: { type: 'string' },
        kid: { type: 'string' },
        batch: { type: 'string' },
        json: { type: 'boolean', default: false },
        ...DELEGATION_FLAGS,
        ...(approve ? { args: { type: 'string' as const } } : {}),
      });
      if (values.batch !== undefined) {
        if (
          positionals.length > 0 ||
          values.id !== undefined ||
          values.handoff !== undefined ||
          values.args !== undefined
        )
          throw new UsageError('--batch names its approvals itself: give no <workflowId>, --id or --args with it');
        if (values['on-behalf-of'] !== undefined || values.delegation !== undefined)
          throw new UsageError(
            '--batch decides for your own slot: decide for another approver (--on-behalf-of, --delegation) one approval at a time',
          );
        if (!values.as) throw new UsageError('--as <approver> is required: who decides');
        const notes = {
          ...(values.comment !== undefined ? { comment: values.comment } : {}),
          ...(values.reason !== undefined ? { reason: values.reason } : {}),
        };
        return decideBatchFile(
          values.batch,
          { decision, approver: values.as, ...notes, ...cliSigner(values.key, values.kid) },
          values.json,
          out,
        );
      }
      const [workflowId, ...rest] = positionals;
      if (!workflowId || rest.length > 0) throw new UsageError('expected exactly <workflowId>');
      if (!values.as) throw new UsageError('--as <approver> is required: who decides');
      if (values.id !== undefined && values.handoff !== undefined && values.id !== values.handoff) {
        throw new UsageError(`--id ${values.id} and --handoff ${values.handoff} name different approvals: give one`);
      }
      const approvalId = values.id ?? values.handoff;
      const signed = cliSigner(values.key, values.kid);
      const slot = delegationFromFlags(values);
      const changes = typeof values.args === 'string' ? argumentsOption('--args', values.args) : undefined;
      const baton = await batonClient();
      const edit = changes
        ? mergeOntoWaiting(
            await baton
              .getRun(workflowId)
              .pendingApprovals()
              .catch(() => []),
            approvalId,
            changes,
          )
        : undefined;
      const options = {
        approver: values.as,
        comment: values.comment,
        reason: values.reason,
        ...(approvalId !== undefined ? { approvalId } : {}),
        ...(edit ? { arguments: edit.arguments, ...(edit.callHash ? { callHash: edit.callHash } : {}) } : {}),
        ...signed,
        ...slot,
      };
      const record = approve ? await baton.approve(workflowId, options) : await baton.reject(workflowId, options);
      // Edited arguments the tool declares sensitive are not echoed to the terminal.
      const team = record.editedArguments !== undefined ? await chainRedaction(baton.client, workflowId) : undefined;
      out(
        `${formatDecision(redactDecisionRecord(record, team?.of(undefined, record.tool)))}${edit && record.editedArguments ? ` ${edit.note}` : ''}`,
      );
      return 0;
    },
  };
}

async function batonClient(): Promise<Baton> {
  const { client } = await connect();
  return new Baton({ client });
}
