// Reading credentials off a request: the access token (header `Authorization: OAuth <t>`, or the
// `access_token` / `oauth_token` parameter) and the API key and secret (HTTP Basic or body fields).
import type { FastifyRequest } from 'fastify';
import { apiError } from '../errors.js';

const TOKEN_PARAMS = ['access_token', 'oauth_token'] as const;

function param(request: FastifyRequest, name: string): string | undefined {
  for (const source of [request.query, request.body]) {
    if (source && typeof source === 'object' && !Array.isArray(source)) {
      const v = (source as Record<string, unknown>)[name];
      if (typeof v === 'string' && v !== '') return v;
    }
  }
  return undefined;
}

/** The access token of the request, or undefined. Both header and parameter: 400 (reference §2.2). */
export function accessToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const fromHeader = header && /^(OAuth|Bearer)\s+/i.test(header) ? header.replace(/^\S+\s+/, '').trim() : undefined;
  const fromParam = TOKEN_PARAMS.map((n) => param(request, n)).find((v) => v !== undefined);
  if (fromHeader && fromParam) {
    throw apiError('invalid_request', 'Auth token found in GET or POST when token present in header');
  }
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
  if (!clientId) return undefined;
  return { clientId, clientSecret: param(request, 'client_secret'), via: 'body' };
}
