/**
 * What every route of the service shares: the Baton client, who the caller is, the start limiter,
 * the metrics and the approvals feed.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Baton } from '../client/baton';
import type { ChainRequests } from '../client/requests';
import type { DecisionSigner } from '../client/signing/signer';
import type { Identity, TokenChecked } from './auth';
import type { Place } from './arrival';
import type { ApprovalsFeed } from './events';
import type { PayloadLimit } from './limits';
import type { ServiceMetrics } from './metrics';
import type { StartLimiter } from './rateLimit';

/** Hono's environment of the service: the authenticated caller of a `/v1` request. */
export interface ServiceEnv {
  Variables: { identity: Identity; token: TokenChecked['token']; place?: Place };
}

/** The service's app type. */
export type ServiceApp = OpenAPIHono<ServiceEnv>;

/** Shared state of the routes. */
export interface ServiceContext {
  baton: Baton;
  /** The agents the workers serve, when the service knows them. */
  agents?: readonly string[];
  limiter: StartLimiter;
  metrics?: ServiceMetrics;
  feed: ApprovalsFeed;
  /** Aborted when the service closes: its streams' own calls to Temporal end with it. */
  closing?: AbortSignal;
  /** What each chain with a waiting approval was asked, and by whom. */
  requests: ChainRequests;
  /** Deadline of a request's calls to Temporal, in milliseconds. */
  temporalTimeoutMs: number;
  /** How long a message request waits for its reply before it answers 202 with where to follow it, in milliseconds. */
  replyWaitMs: number;
  /** How long a start without a workflow id or an Idempotency-Key is keyed by its request, in milliseconds (0: not at all). */
  idempotencyWindowMs: number;
  /** What the routes may send to Temporal in one request. */
  payloadLimit: PayloadLimit;
  log: (message: string, error?: unknown) => void;
  /** Signs decisions on behalf of the identity a token proved, when the service has a key. */
  signer?: DecisionSigner;
}

/** The security requirement of `/v1` routes in the OpenAPI document. */
export const BEARER = [{ bearer: [] }];
