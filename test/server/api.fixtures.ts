/**
 * What the HTTP API test shares: the team whose approval waits in a specialist, and the paths its
 * OpenAPI document lists.
 */
import { defineAgent, delegate, scripted, Team } from '../../src';

/** `top` delegates to `leaf`, which hands off to `vault`, whose handoffs alice must approve. */
export function specialistTeam(): Team {
  return new Team([
    defineAgent({
      id: 'top',
      instructions: 'Top.',
      model: scripted({
        steps: [
          { toolCalls: [{ name: 'delegate', arguments: { to: 'leaf', task: 'open it', reason: 'leaf knows' } }] },
        ],
        rules: [{ whenIncludes: '', reply: { text: 'summarized' } }],
      }),
      handoffs: [delegate('leaf')],
    }),
    defineAgent({
      id: 'leaf',
      instructions: 'Leaf.',
      model: scripted([{ handoff: { to: 'vault', message: 'open the vault' } }]),
      handoffs: ['vault'],
    }),
    defineAgent({
      id: 'vault',
      instructions: 'Vault.',
      model: scripted([{ text: 'vault opened' }]),
      approval: { approvers: ['alice'] },
    }),
  ]);
}

/** Every path the service describes in `/openapi.json`. */
export const API_PATHS: readonly string[] = [
  ...[
    '/v1/approvals',
    '/v1/approvals/batch',
    '/v1/approvals/events',
    '/v1/inbox',
    '/v1/breakers',
    '/v1/breakers/reset',
    '/v1/conversations/{id}',
    '/v1/conversations/{id}/end',
    '/v1/conversations/{id}/messages',
    '/v1/conversations/{id}/messages/{key}',
    '/v1/me',
    '/v1/runs',
    '/v1/runs/{id}',
  ],
  ...[
    '/v1/runs/{id}/approvals/{approvalId}',
    '/v1/runs/{id}/approvals/{approvalId}/questions',
    '/v1/runs/{id}/approvals/{approvalId}/answer',
    '/v1/runs/{id}/audit',
    '/v1/runs/{id}/events',
    '/v1/runs/{id}/replay',
    '/v1/runs/{id}/dataset',
    '/v1/runs/{id}/steer',
    '/v1/runs/{id}/stream',
  ],
  ...['/v1/evals/{id}', '/v1/experiments/{id}', '/v1/experiments/{id}/stop', '/v1/stats'],
  ...[
    '/v1/ui/conversations',
    '/v1/ui/conversations/{id}/stream',
    '/v1/ui/conversations/{id}/messages',
    '/v1/ui/runs',
    '/v1/ui/runs/{id}/stream',
    '/v1/ui/runs/{id}/messages',
  ],
];
