// While the app closes (SIGTERM through close-with-grace, or app.close()), the engine and the
// dispatcher stop in preClose hooks and open keep-alive connections stay open until their requests
// end: a request that still arrives on one is answered 503 service_unavailable in the error shape,
// with Retry-After. Fastify's own answer (return503OnClosing, turned off in app.ts) has a fixed body
// of another shape, and a hook on every request would cost the hot path while the app is up, so the
// server's request listener is swapped once, when closing begins.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { apiError } from '../errors.js';
import { dropRestOfBody } from './oversized-body.js';

const refusal = apiError('service_unavailable', 'The service is shutting down; send the request again', { 'retry-after': '1' });
const BODY = JSON.stringify(refusal.body());

function refuse(req: IncomingMessage, res: ServerResponse): void {
  const headers: Record<string, string | number> = { ...refusal.headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(BODY) };
  // The connection will not carry another request (HTTP/2 has no Connection header).
  if (req.httpVersionMajor < 2) headers.connection = 'close';
  // After the body (read and dropped, as for a 413): closing under a client still sending would
  // make its kernel answer with a reset, and the client would never read the 503.
  void dropRestOfBody(req).then(() => res.writeHead(refusal.status, headers).end(BODY));
}

/** Register before the other preClose hooks: requests are refused before the engine stops. */
export function refuseRequestsWhileClosing(app: FastifyInstance): void {
  app.addHook('preClose', (done) => {
    app.server.removeAllListeners('request');
    app.server.on('request', refuse);
    done();
  });
}
