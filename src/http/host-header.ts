// HTTP/1.1 requires a Host header (RFC 9112 §3.2). Node's parser answered a request without one with
// a bare 400 and no body; its check is off (app.ts: `requireHostHeader: false`) so that the request
// reaches Fastify, where this hook refuses it in the error shape like every other malformed request.
// HTTP/1.0 had no Host header, and is still served without one. Nothing reads the Host header to
// build a URL (http/public-url.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError } from '../errors.js';

async function requireHost(request: FastifyRequest): Promise<void> {
  const { httpVersionMajor, httpVersionMinor } = request.raw;
  if (request.headers.host === undefined && (httpVersionMajor > 1 || (httpVersionMajor === 1 && httpVersionMinor >= 1))) {
    throw apiError('invalid_request', 'An HTTP/1.1 request must have a Host header');
  }
}

/** Refuses HTTP/1.1 requests without a Host header, ahead of every other hook. */
export function refuseRequestsWithoutHost(app: FastifyInstance): void {
  app.addHook('onRequest', requireHost);
}
