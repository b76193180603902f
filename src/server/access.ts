/**
 * Who may call a route: each `/v1` route but `/v1/me` names the permission it needs, checked
 * before its request is validated or anything reaches Temporal (a token with no role reads nothing).
 */
import type { MiddlewareHandler } from 'hono';
import { GRANTS, requirePermission, type Permission } from './auth';
import { BEARER, type ServiceEnv } from './context';

/** Middleware: 403 unless the caller's roles grant `permission`. */
export function needs(permission: Permission): MiddlewareHandler<ServiceEnv> {
  return async (c, next) => {
    requirePermission(c.get('identity'), permission);
    await next();
  };
}

const needsText = (p: Permission) => `Needs the \`${p}\` permission (roles ${GRANTS[p].join(', ')}).`;

/**
 * The security part of a route: the bearer token, the permission checked before validation, and
 * the permission said in the route's description.
 */
export function secured(permission: Permission, description?: string) {
  return {
    security: BEARER,
    middleware: [needs(permission)],
    description: description ? `${description}\n\n${needsText(permission)}` : needsText(permission),
  };
}
