/**
 * The team the model-based harness drives, in two versions. Every agent's model is the puppet
 * (`{provider: 'puppet'}`, see ./puppet.ts): what it answers is chosen by the generated commands.
 *
 * - triage hands off to billing (a person approves every handoff into billing) and support,
 *   delegates to research, looks things up and refunds (every refund approved by a person);
 * - billing refunds and pays out (a payout needs alice's signed approval) and hands back;
 * - support looks things up and hands to triage or billing; research (a specialist) looks up and refunds;
 * - alice's keys are the team's own and those an identity provider publishes (./jwks.ts);
 * - ledger is a remote agent, another team's, served over A2A at `MODEL_REMOTE_URL` (./remoteTeam.ts),
 *   which triage delegates to.
 *
 * v2 is a release with a changed policy: triage's instructions, refunds approved by alice only,
 * and `lookup` wants a region, so a v1 chain's lookup cannot run on a v2 worker.
 *
 * Tools log their effects with their idempotency keys (./effects.ts), once per key.
 */
import { z } from 'zod';
import { defineAgent, defineTool, delegate, remoteAgent, Team, type ToolContext } from '../../src';
import type { ApproverKey } from '../../src/client/signing';
import { keys, testKey } from '../helpers/signing';
import { passkeyEntry, seededPasskey } from '../helpers/passkeys';
import { applyOnce } from './effects';
import { IDP_KEYS } from './jwks';

/** The versions of the team. */
export type TeamVersion = 'v1' | 'v2';

/** The team's agents and whom each hands off to (delegations apart). */
export const AGENTS = ['triage', 'billing', 'support', 'research'] as const;
export type AgentId = (typeof AGENTS)[number];

/** Agents a chain or conversation may start at. */
export const START_AGENTS: AgentId[] = ['triage', 'support', 'billing'];

/** Tools with a side effect, by name. */
export const EFFECT_TOOLS = ['lookup', 'refund', 'payout'] as const;
export type EffectTool = (typeof EFFECT_TOOLS)[number];

/** Tools whose every call waits for a person. */
export const APPROVED_TOOLS: EffectTool[] = ['refund', 'payout'];

/** The key alice signs decisions with; the team trusts it for alice. */
export const ALICE = keys.alice;
/** The key bob signs decisions with (the second vote of a signed quorum). */
export const BOB = keys.bob;
/** A key nobody trusts. */
export const MALLORY = keys.mallory;

const approverKeys: ApproverKey[] = [
  { kid: ALICE.kid, approvers: ['alice'], publicKey: ALICE.publicKey },
  { kid: BOB.kid, approvers: ['bob'], publicKey: BOB.publicKey },
];

/** The operator whose signed overrides may loosen what protects a chain. */
export const OPS = testKey('ops-1', 11);
/** The operator's passkey, registered at the operators' console. */
export const OPS_PASSKEY = seededPasskey('ops-passkey', 12);
export const OPS_PASSKEY_AT = { rpId: 'ops.example.com', origin: 'https://ops.example.com' };
const operatorKeys: ApproverKey[] = [
  { kid: OPS.kid, approvers: ['ops'], publicKey: OPS.publicKey },
  passkeyEntry(OPS_PASSKEY, ['ops'], OPS_PASSKEY_AT.rpId, [OPS_PASSKEY_AT.origin]),
];

const puppet = { provider: 'puppet', model: 'puppet' };

/** The token the workers call the remote team's service with. */
export const REMOTE_TOKEN = 'model-remote-token-1';

function effectTool<S extends z.ZodObject>(
  v: TeamVersion,
  name: EffectTool,
  parameters: S,
  approval?: Parameters<typeof defineTool>[0]['needsApproval'],
) {
  return defineTool({
    name,
    description: `${name} (${v})`,
    parameters,
    ...(approval !== undefined ? { needsApproval: approval } : {}),
    execute: (args: z.output<S>, ctx: ToolContext) => {
      const { applied } = applyOnce({
        key: ctx.idempotencyKey,
        workflowId: ctx.workflowId,
        runId: ctx.runId,
        toolCallId: ctx.toolCallId,
        tool: name,
        agent: ctx.agentId,
        args,
        context: ctx.context,
        version: v,
        attempt: ctx.attempt,
      });
      return { ok: true, tool: name, ref: (args as { ref?: unknown }).ref, applied };
    },
  });
}

/** The team a worker of version `v` serves. */
export function modelTeam(v: TeamVersion): Team {
  const ref = z.string().max(64);
  const lookup = effectTool(
    v,
    'lookup',
    v === 'v1' ? z.object({ ref }) : z.object({ ref, region: z.enum(['eu', 'us']) }),
  );
  const refund = effectTool(
    v,
    'refund',
    z.object({ ref, amount: z.number().min(0).max(10_000) }),
    v === 'v1' ? true : { approvers: ['alice'] },
  );
  const payout = effectTool(v, 'payout', z.object({ ref, amount: z.number().min(0).max(10_000) }), {
    approvers: ['alice'],
    requireSignature: true,
  });
  return new Team(
    [
      defineAgent({
        id: 'triage',
        instructions: v === 'v1' ? 'Route the request.' : 'Route the request; be brief.',
        model: puppet,
        tools: [lookup, refund],
        handoffs: [
          'billing',
          'support',
          delegate('research', { description: 'Researches a question' }),
          delegate('ledger'),
        ],
      }),
      defineAgent({
        id: 'billing',
        instructions: 'Settle money matters.',
        model: puppet,
        tools: [refund, payout],
        handoffs: ['triage', 'support'],
        approval: { approvers: ['alice', 'bob'] },
      }),
      defineAgent({
        id: 'support',
        instructions: 'Answer questions.',
        model: puppet,
        tools: [lookup],
        handoffs: ['triage', 'billing'],
        ...(v === 'v2' ? { approval: { quorum: { of: ['alice', 'bob', 'carol'], needed: 2 } } } : {}),
      }),
      defineAgent({
        id: 'research',
        description: 'Researches a question',
        instructions: 'Research and answer.',
        model: puppet,
        tools: [lookup, refund],
        handoffs: [],
      }),
    ],
    {
      name: 'model',
      version: v,
      approverKeys,
      operatorKeys,
      // The identity provider's keys for alice (./jwks.ts), when the harness serves them.
      ...(process.env.MODEL_JWKS_URL
        ? {
            jwks: [
              {
                url: process.env.MODEL_JWKS_URL,
                approvers: Object.fromEntries(IDP_KEYS.map((k) => [k.kid, ['alice']])),
                refreshSeconds: 1,
              },
            ],
          }
        : {}),
      remotes: [
        remoteAgent({
          id: 'ledger',
          url: `${process.env.MODEL_REMOTE_URL ?? 'http://127.0.0.1:9'}/a2a`,
          agent: 'ledger',
          description: 'Keeps the ledger (another team)',
          auth: { token: REMOTE_TOKEN },
        }),
      ],
    },
  );
}
