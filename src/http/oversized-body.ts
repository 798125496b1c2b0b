// A body over the limit is refused with a 413 the client can read. Fastify refuses it as soon as it
// knows (from Content-Length, or once a chunked body passes the limit) and its reply closes the
// connection while the client is still sending: the server's kernel then answers the bytes still
// arriving with a reset, and a client that reads only after sending (most do) sees ECONNRESET or
// EPIPE, never the 413. So the rest of the body is read first, and dropped as it arrives (nothing
// of it is kept), then the 413 is sent. A body declared, or found, bigger than DROP_LIMIT is not
// worth reading: the 413 goes at once, as before.
import type { IncomingMessage } from 'node:http';

/** The most of an oversized body read (and dropped) so that its client can read the 413. */
export const DROP_LIMIT = 16 * 1024 * 1024;

/** Resolves once the request's body has all arrived (and was dropped), or DROP_LIMIT was passed, or the connection ended. */
export function dropRestOfBody(raw: IncomingMessage): Promise<void> {
  if (raw.complete || raw.readableEnded || raw.destroyed || Number(raw.headers['content-length']) > DROP_LIMIT) return Promise.resolve();
  return new Promise((resolve) => {
    let dropped = 0;
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > DROP_LIMIT) finish();
    };
    const finish = () => {
      raw.off('data', onData).off('end', finish).off('close', finish);
      resolve();
    };
    raw.on('data', onData).once('end', finish).once('close', finish);
    raw.resume();
  });
}
