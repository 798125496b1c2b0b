// Requests Node's HTTP parser refuses before Fastify sees them (headers or request line too large,
// broken framing, a request not received in time) are answered here, in the documented error
// shape: Fastify's default clientErrorHandler answered with a body of its own shape
// ({error, message, statusCode}). Passed to Fastify as its `clientErrorHandler` option.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { apiError, type ApiError } from '../errors.js';

/** The request line plus headers, bytes: Node's default, set here so no start-up flag changes it. */
export const MAX_HEADER_SIZE = 16 * 1024;

/** How long an answered connection may stay half-open while the client finishes sending. */
const LINGER_MS = 2_000;

function answerFor(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return apiError('request_header_fields_too_large', `The request line and headers are larger than ${MAX_HEADER_SIZE} bytes`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return apiError('payload_too_large', 'The chunk extensions of the request body are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return apiError('request_timeout', 'The request was not received in time');
    default:
      return apiError('invalid_request', 'The request is not well-formed HTTP/1.1');
  }
}

export function clientErrorHandler(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  // A reset connection, or one already answered (the parser reports again on more bytes): nothing to say.
  if (err.code === 'ECONNRESET' || socket.destroyed || socket.writableEnded) return;
  this.log.debug({ err }, 'client error');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const api = answerFor(err.code);
  const body = JSON.stringify(api.body());
  // Ended, not destroyed: closing with the client's bytes unread would make the kernel send a
  // reset, which can discard the answer before the client reads it. What else arrives is dropped.
  socket.resume();
  socket.end(
    `HTTP/1.1 ${api.status} ${STATUS_CODES[api.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once('close', () => clearTimeout(linger));
}
