// The live stream (/1/stream) from a test, as a real `ws` client: over a loopback socket for a
// server that listens, or, for an app under inject, over an in-memory pipe handed to the app's
// HTTP server as a connection (the same HTTP parser, upgrade, route and WebSocket framing, no
// port). Frames are collected from the first one, replay included.
import { Duplex, PassThrough } from 'node:stream';
import WebSocket from 'ws';
import type { TestServer, TestService } from './server.js';

export interface LiveStream {
  ws: WebSocket;
  /** Every frame received so far, parsed. */
  frames: any[];
  /** The close code, once the stream closed. */
  closeCode?: number;
}

/** Two ends of an in-memory connection, each shaped enough like a loopback socket for http and ws. */
function connectionPair(): { client: Duplex; server: Duplex } {
  const up = new PassThrough();
  const down = new PassThrough();
  const end = (readable: PassThrough, writable: PassThrough) =>
    Object.assign(Duplex.from({ readable, writable }), {
      remoteAddress: '127.0.0.1', remotePort: 0, encrypted: false,
      setTimeout() {}, setNoDelay() {}, setKeepAlive() {},
    });
  return { client: end(down, up), server: end(up, down) };
}

export async function openStream(service: TestService | TestServer, headers: Record<string, string>, query = ''): Promise<LiveStream> {
  const stream = { frames: [] as any[] } as LiveStream;
  let ws: WebSocket;
  if ('url' in service) {
    ws = new WebSocket(`${service.url.replace(/^http/, 'ws')}/1/stream${query}`, { headers });
  } else {
    const { client, server } = connectionPair();
    service.app.server.emit('connection', server);
    ws = new WebSocket(`ws://localhost/1/stream${query}`, { headers, createConnection: () => client as any });
  }
  stream.ws = ws;
  ws.on('message', (data) => stream.frames.push(JSON.parse(String(data))));
  ws.on('close', (code) => (stream.closeCode = code));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return stream;
}
