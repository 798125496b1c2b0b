// What the absolute URLs the service hands out start with (share links, trip links, the Location
// of a 409): PUBLIC_URL when set, else the address the service listens on. Never the request's Host
// header, which the caller chooses: a link built from it would send whoever follows it wherever
// the caller said.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface PublicUrlSettings {
  publicUrl?: string;
  host: string;
  port: number;
}

/** A host as it goes in a URL: a wildcard address as loopback, an IPv6 address in brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The public base URL, without a trailing slash: PUBLIC_URL, else HOST and the port listened on
 * (`address`, once listening; PORT before).
 */
export function publicBaseUrl(settings: PublicUrlSettings, address?: AddressInfo | string | null): string {
  if (settings.publicUrl) return settings.publicUrl;
  const port = typeof address === 'object' && address !== null ? address.port : settings.port;
  return `http://${urlHost(settings.host)}:${port}`;
}

/** The public base URL of a running app. */
export const publicBaseOf = (app: FastifyInstance): string => publicBaseUrl(app.ctx.config, app.server.address());
