import type { FastifyReply, FastifyRequest } from 'fastify';
import { grants, type RouteRequirement } from '../api-keys/scopes.ts';
import { ApiError } from '../shared/errors.ts';
import { ROLES } from '../users/roles.ts';

/**
 * onRequest hook, after Bearer authentication: the token's scopes must grant what the route
 * demands (RFC 6750 §3.1: 403 with error="insufficient_scope" and the scope needed). A route the
 * table does not name is refused to every token: a forgotten route fails closed.
 */
export function requireScope(table: Readonly<Record<string, RouteRequirement>>) {
  return async function checkScope(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const url = request.routeOptions.url;
    if (url === undefined) return; // no route matched: the not-found handler answers
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const required = table[`${method} ${url}`];
    const role = request.auth.user?.role;
    if (required !== undefined && grants(request.auth.scopes, required, role !== undefined && ROLES[role].managesKeys)) return;
    const scope = required === undefined || required === 'authenticated' || required === 'manage_keys' ? 'all' : required;
    const accepted = scope === 'all' ? '`all`' : `\`${scope}\` or \`all\``;
    const holder = role === undefined ? "This API key's scopes do" : `The ${role} role does`;
    throw new ApiError('insufficient_scope', `${holder} not allow this request; it needs ${accepted}.`, {
      headers: {
        'www-authenticate': `Bearer realm="payments", error="insufficient_scope", scope="${scope}"`,
      },
    });
  };
}
