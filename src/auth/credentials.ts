// Reading credentials off a request: the access token (header `Authorization: OAuth <t>`, or the
// `access_token` / `oauth_token` parameter) and the API key and secret (HTTP Basic or body fields).
// The guards read them before the schema's validation (plugin.ts), so parameters come as sent.
import type { FastifyRequest } from 'fastify';
import { apiError } from '../errors.js';
import { invalidClient, invalidToken } from './authenticate.js';

const TOKEN_PARAMS = ['access_token', 'oauth_token'] as const;

/** A credential parameter sent as something other than one string. */
const UNREADABLE = Symbol('unreadable credential');
type Param = string | typeof UNREADABLE | undefined;

/**
 * A credential parameter from the query string or the body, as sent: read before validation, a
 * JSON number, array or object, a field repeated in the query or a form, or `access_token[]=…` is
 * UNREADABLE, and refused as a credential that matches nothing. It is never read as its item (ajv's
 * coercion would take ["t"] as "t") and never skipped for another source. Empty or null is not sent.
 */
function param(request: FastifyRequest, name: string): Param {
  let found: string | undefined;
  for (const source of [request.query, request.body]) {
    if (!source || typeof source !== 'object' || Array.isArray(source)) continue;
    const v = (source as Record<string, unknown>)[name];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'string') return UNREADABLE;
    found ??= v;
  }
  return found;
}

/** The access token of the request, or undefined. Both header and parameter: 400 (reference §2.2). */
export function accessToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const fromHeader = header && /^(OAuth|Bearer)\s+/i.test(header) ? header.replace(/^\S+\s+/, '').trim() : undefined;
  // A loop, not map/find: location/update's hot path runs this for every request.
  let fromParam: Param;
  for (const name of TOKEN_PARAMS) {
    const v = param(request, name);
    if (v === UNREADABLE) {
      fromParam = v;
      break;
    }
    fromParam ??= v;
  }
  if (fromHeader && fromParam !== undefined) {
    throw apiError('invalid_request', 'Auth token found in GET or POST when token present in header');
  }
  if (fromParam === UNREADABLE) throw invalidToken();
  return fromHeader || fromParam;
}

export interface ClientCredentials {
  clientId: string;
  clientSecret?: string;
  /** Where they came from: `basic` answers 401 + WWW-Authenticate on failure (RFC 6749 §5.2). */
  via: 'basic' | 'body';
}

/**
 * Basic credentials are form-encoded before base64 (RFC 6749 §2.3.1). A value that is not valid
 * percent-encoding is taken as it stands, so it simply matches no client: decodeURIComponent's
 * URIError, thrown where the auth guard composes its strategies, ended the process.
 */
function formDecoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export function basicCredentials(request: FastifyRequest): { user: string; pass: string } | undefined {
  const header = request.headers.authorization;
  if (!header || !/^Basic\s+/i.test(header)) return undefined;
  const decoded = Buffer.from(header.replace(/^Basic\s+/i, ''), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { user: formDecoded(decoded), pass: '' };
  return { user: formDecoded(decoded.slice(0, colon)), pass: formDecoded(decoded.slice(colon + 1)) };
}

export function clientCredentials(request: FastifyRequest): ClientCredentials | undefined {
  const basic = basicCredentials(request);
  if (basic && basic.user) return { clientId: basic.user, clientSecret: basic.pass || undefined, via: 'basic' };
  const clientId = param(request, 'client_id');
  const clientSecret = param(request, 'client_secret');
  if (clientId === UNREADABLE || clientSecret === UNREADABLE) throw invalidClient();
  if (!clientId) return undefined;
  return { clientId, clientSecret, via: 'body' };
}
