/**
 * Who may do what: bearer tokens mapped to identities with roles. Static tokens for development
 * (kept as SHA-256 digests once loaded), JWTs verified against a JWKS for production. A token is
 * never logged, echoed or sent to Temporal; only the identity's name reaches a workflow, as the
 * approver of a decision.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { TENANT_ID } from '../common/tenant';
import { HttpProblem } from './problems';

/** Roles a token may carry. Every role may read runs, audits and approvals; a token with no role reads nothing. */
export const Role = {
  /** Reads runs, audits, events and approvals. */
  VIEWER: 'viewer',
  /** Also starts and replays runs. */
  STARTER: 'starter',
  /** Also decides approvals (as the policy's `approvers` allow). */
  APPROVER: 'approver',
  /** Everything. */
  ADMIN: 'admin',
} as const;
export type Role = (typeof Role)[keyof typeof Role];

const ROLES = new Set<string>(Object.values(Role));

/** What a caller may do. */
export const Permission = {
  /** Read runs, audits, events, approvals and conversations, and their streams. */
  READ: 'read',
  /** Start and replay runs, send messages to conversations and end them. */
  START: 'start',
  /** Decide approvals (as the policy's `approvers` allow). */
  DECIDE: 'decide',
  /** Operate what chains share: reset a shared circuit breaker. */
  OPERATE: 'operate',
} as const;
export type Permission = (typeof Permission)[keyof typeof Permission];

/** The roles that grant each permission. */
export const GRANTS: Readonly<Record<Permission, readonly Role[]>> = {
  read: [Role.VIEWER, Role.STARTER, Role.APPROVER, Role.ADMIN],
  start: [Role.STARTER, Role.ADMIN],
  decide: [Role.APPROVER, Role.ADMIN],
  operate: [Role.ADMIN],
};

/** The caller a token stands for. `name` is what approvals record and policies' `approvers` list. */
export interface Identity {
  name: string;
  roles: Role[];
  /** The groups the caller belongs to: the inbox lists what waits for them too (a policy's `approvers` naming the group). */
  groups?: string[];
  /**
   * The tenant the caller acts for: it reads, decides and starts that tenant's chains only (another
   * tenant's chain is not found). Without one, only chains without a tenant (docs/operating.md, Tenants).
   */
  tenant?: string;
}

/** A static token: the token itself (development) or its SHA-256 digest in hex. */
export interface StaticToken {
  token?: string;
  sha256?: string;
  identity: string;
  roles: Role[];
  /** The groups the identity belongs to (see {@link Identity.groups}). */
  groups?: string[];
  /** The tenant the identity acts for (see {@link Identity.tenant}). */
  tenant?: string;
}

/** JWT verification against a JSON Web Key Set. */
export interface JwtAuthOptions {
  /** e.g. `https://issuer.example/.well-known/jwks.json` */
  jwksUrl: string;
  issuer?: string | string[];
  audience?: string | string[];
  /** The claim naming the identity. @default "sub" */
  identityClaim?: string;
  /** The claim listing roles (an array, or a space-separated string). @default "roles" */
  rolesClaim?: string;
  /** The claim naming the caller's tenant (see {@link Identity.tenant}); a JWT without it acts for no tenant. @default "tenant" */
  tenantClaim?: string;
  /**
   * Accept JWTs without an `exp` claim (tokens that never expire). Refused by default: a leaked
   * token without an expiry works for ever. @default false
   */
  allowMissingExp?: boolean;
}

/** How the service authenticates callers. At least one way must be given. */
export interface AuthOptions {
  tokens?: StaticToken[];
  jwt?: JwtAuthOptions;
  /** Your own check, tried after the others: an identity, or `undefined` to refuse. */
  authenticate?: (token: string) => Promise<Identity | undefined>;
}

/** What the service checked of a token: its issuer and subject, which its signatures of decisions name. */
export interface TokenChecked {
  identity: Identity;
  /** A JWT's `iss` and `sub`; `baton:static-tokens` and the identity's name for a static token; `baton:authenticate` and the name for your own check. */
  token: { iss: string; sub: string };
}

/** Resolves bearer tokens to identities. */
export class Authenticator {
  private readonly digests: { digest: Buffer; identity: Identity }[];
  private readonly jwks?: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly options: AuthOptions) {
    if (!options.tokens?.length && !options.jwt && !options.authenticate) {
      throw new Error(
        'the service needs a way to authenticate callers: static tokens, a JWKS for JWTs, or an authenticate function',
      );
    }
    this.digests = (options.tokens ?? []).map((t, i) => ({
      digest: digestOf(t, i),
      identity: identityOf(t.identity, t.roles, `tokens[${i}]`, t.groups, t.tenant),
    }));
    if (options.jwt) this.jwks = createRemoteJWKSet(new URL(options.jwt.jwksUrl));
  }

  /** The identity of an `Authorization` header; 401 without a valid bearer token. */
  async identify(header: string | undefined): Promise<Identity> {
    return (await this.check(header)).identity;
  }

  /** The identity of an `Authorization` header and what was checked of its token; 401 without a valid bearer token. */
  async check(header: string | undefined): Promise<TokenChecked> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
    if (!token) throw unauthorized('a bearer token is required (Authorization: Bearer <token>)');
    const jwt = await this.fromJwt(token);
    if (jwt && 'identity' in jwt) return jwt;
    const found = this.fromStatic(token);
    if (found) return found;
    const identity = await this.options.authenticate?.(token);
    if (!identity) throw unauthorized(jwt && 'refused' in jwt ? jwt.refused : 'the token is not valid');
    return { identity, token: { iss: 'baton:authenticate', sub: identity.name } };
  }

  private fromStatic(token: string): TokenChecked | undefined {
    const digest = createHash('sha256').update(token).digest();
    const identity = this.digests.find((d) => timingSafeEqual(d.digest, digest))?.identity;
    // The name the token maps to, never anything derived from the token: a weak token must not be guessable from the audit.
    return identity ? { identity, token: { iss: 'baton:static-tokens', sub: identity.name } } : undefined;
  }

  /** The identity of a JWT; why a JWT whose signature verified is refused; `undefined` for a token that is not a JWT of the key set. */
  private async fromJwt(token: string): Promise<TokenChecked | { refused: string } | undefined> {
    const jwt = this.options.jwt;
    if (!jwt || !this.jwks || token.split('.').length !== 3) return undefined;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks, {
        ...(jwt.issuer ? { issuer: jwt.issuer } : {}),
        ...(jwt.audience ? { audience: jwt.audience } : {}),
        ...(jwt.allowMissingExp ? {} : { requiredClaims: ['exp'] }),
      }));
    } catch (err) {
      return jwtRefusal(err);
    }
    const claim = jwt.identityClaim ?? 'sub';
    const name = payload[claim];
    if (typeof name !== 'string' || name === '')
      return { refused: `the JWT has no "${claim}" claim naming who it stands for` };
    const raw = payload[jwt.rolesClaim ?? 'roles'];
    const roles = (Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(' ') : []).filter(
      (r): r is Role => typeof r === 'string' && ROLES.has(r),
    );
    const tenantClaim = jwt.tenantClaim ?? 'tenant';
    const tenant = payload[tenantClaim];
    // A tenant the service cannot scope by is refused, not dropped: dropping it would widen the token to chains without a tenant.
    if (tenant !== undefined && (typeof tenant !== 'string' || !TENANT_ID.test(tenant)))
      return {
        refused: `the JWT's "${tenantClaim}" claim must be a tenant id of 1-64 letters, digits, ".", "_" or "-"`,
      };
    return {
      identity: { name, roles, ...(tenant !== undefined ? { tenant } : {}) },
      token: {
        iss: typeof payload.iss === 'string' ? payload.iss : jwt.jwksUrl,
        sub: typeof payload.sub === 'string' ? payload.sub : name,
      },
    };
  }
}

/** Why a JWT is refused, when its signature verified and a claim did not hold; `undefined` otherwise (maybe another kind of token). */
function jwtRefusal(err: unknown): { refused: string } | undefined {
  if (err instanceof joseErrors.JWTExpired) return { refused: 'the JWT has expired' };
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'exp' && err.reason === 'missing') {
      return {
        refused:
          'the JWT has no "exp" claim; JWTs that never expire are refused unless the service allows them (jwt.allowMissingExp, BATON_JWT_ALLOW_MISSING_EXP=true)',
      };
    }
    return { refused: `the JWT's "${err.claim}" claim does not hold (${err.reason})` };
  }
  return undefined;
}

const WHAT: Record<Permission, string> = {
  read: 'read runs, audits, events, approvals or conversations',
  start: 'start or replay runs, or send messages to conversations and end them',
  decide: 'decide approvals',
  operate: 'reset shared circuit breakers',
};

/** 403 unless `identity` has a role that grants `permission`, naming the permission and the roles that grant it. */
export function requirePermission(identity: Identity, permission: Permission): void {
  if (identity.roles.some((r) => GRANTS[permission].includes(r))) return;
  throw new HttpProblem(
    403,
    'Forbidden',
    `${identity.name} may not ${WHAT[permission]}: that needs the "${permission}" permission, which the roles ${GRANTS[permission].join(', ')} grant (this token's roles: ${identity.roles.join(', ') || 'none'})`,
  );
}

/** Whether `identity` may decide an approval whose policy names `approvers` (anyone when absent). */
export function mayDecide(identity: Identity, approvers: readonly string[] | undefined): boolean {
  return identity.roles.some((r) => GRANTS.decide.includes(r)) && (!approvers || approvers.includes(identity.name));
}

/**
 * Static tokens from JSON: `[{"token": "…", "identity": "alice", "roles": ["approver"], "tenant": "acme"}]`, or with
 * `"sha256"` (the token's digest in hex) instead of `"token"` so the file holds no secret.
 */
export function parseTokens(json: string, source: string): StaticToken[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new Error(`${source} is not JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(value)) throw new Error(`${source} must be a JSON array of {token | sha256, identity, roles}`);
  return value.map((t: unknown, i) => {
    const entry = t as Partial<StaticToken>;
    digestOf(entry as StaticToken, i, source);
    identityOf(entry.identity, entry.roles, `${source}[${i}]`, entry.groups, entry.tenant);
    return entry as StaticToken;
  });
}

function digestOf(t: StaticToken, i: number, source = 'tokens'): Buffer {
  if (typeof t.token === 'string' && t.token.length >= 8) return createHash('sha256').update(t.token).digest();
  if (typeof t.sha256 === 'string' && /^[0-9a-f]{64}$/i.test(t.sha256)) return Buffer.from(t.sha256, 'hex');
  throw new Error(`${source}[${i}] needs "token" (8 characters or more) or "sha256" (64 hex digits)`);
}

function identityOf(name: unknown, roles: unknown, where: string, groups?: unknown, tenant?: unknown): Identity {
  if (typeof name !== 'string' || name.trim() === '')
    throw new Error(`${where}: "identity" must name who the token stands for`);
  if (!Array.isArray(roles) || roles.some((r) => !ROLES.has(r as string)))
    throw new Error(`${where}: "roles" must list roles from ${[...ROLES].join(', ')}`);
  if (groups !== undefined && (!Array.isArray(groups) || groups.some((g) => typeof g !== 'string' || g.trim() === '')))
    throw new Error(`${where}: "groups" must list group names (non-empty strings)`);
  if (tenant !== undefined && (typeof tenant !== 'string' || !TENANT_ID.test(tenant)))
    throw new Error(`${where}: "tenant" must be a tenant id of 1-64 letters, digits, ".", "_" or "-"`);
  return {
    name,
    roles: roles as Role[],
    ...(groups ? { groups: groups as string[] } : {}),
    ...(tenant !== undefined ? { tenant: tenant as string } : {}),
  };
}

function unauthorized(detail: string): HttpProblem {
  return new HttpProblem(401, 'Unauthorized', detail, undefined, { 'www-authenticate': 'Bearer' });
}
