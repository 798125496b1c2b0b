// A raw HTTP/1.1 connection for the tests that fetch cannot express: pipelined requests, a body
// written in pieces with pauses, a client that reads only after it has sent everything.
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawConnection {
  /** Resolves once the bytes are handed to the kernel; rejects if the connection failed. */
  write(data: string | Buffer): Promise<void>;
  /** Everything received so far, read as responses with a Content-Length (interim 1xx left out). */
  responses(): RawResponse[];
  /** Resolves once the received bytes contain `text` (e.g. `100 Continue`: the request was routed). */
  received(text: string): Promise<void>;
  /** Resolves when the server has closed the connection (or after `ms`). */
  closed(ms?: number): Promise<void>;
  /** The socket error, if any (ECONNRESET, EPIPE). */
  error(): string | undefined;
  destroy(): void;
}

export async function connect(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  const received: Buffer[] = [];
  let failure: string | undefined;
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.on('error', (err: NodeJS.ErrnoException) => (failure = err.code ?? err.message));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return {
    write: (data) =>
      new Promise((resolve, reject) => {
        if (socket.destroyed) return reject(new Error(failure ?? 'connection closed'));
        socket.write(data, (err) => (err ? reject(err) : resolve()));
      }),
    responses: () => parseResponses(Buffer.concat(received).toString('utf8')).filter((r) => r.status >= 200),
    received: async (text) => {
      while (!Buffer.concat(received).includes(text)) {
        if (socket.destroyed) throw new Error(`connection closed before "${text}" arrived`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    },
    closed: (ms = 5000) => Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, ms))]),
    error: () => failure,
    destroy: () => socket.destroy(),
  };
}

function parseResponses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let at = 0;
  while (at < text.length) {
    const headEnd = text.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const [statusLine, ...lines] = text.slice(at, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(headEnd + 4, headEnd + 4 + length) });
    at = headEnd + 4 + length;
  }
  return out;
}
