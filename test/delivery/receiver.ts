// A real HTTP receiver on 127.0.0.1 for delivery tests: answers each request with the next scripted
// behaviour (a status, a reset, a hang, an endless body) and keeps what it received.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour = number | 'reset' | 'hang' | 'endless';

export interface Received {
  headers: Record<string, string>;
  body: string;
  status: number | Behaviour;
  /** When the request arrived (epoch ms). */
  at: number;
}

export class Receiver {
  readonly received: Received[] = [];
  private script: Behaviour[] = [];
  private fallback: Behaviour = 200;
  private server = http.createServer((req, res) => this.handle(req, res));
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  /** Behaviours for the next requests, in order; then `fallback` for every later one. */
  plan(script: Behaviour[], fallback: Behaviour = 200): this {
    this.script = [...script];
    this.fallback = fallback;
    return this;
  }

  delivered(): Received[] {
    return this.received.filter((r) => typeof r.status === 'number' && r.status >= 200 && r.status < 300);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const behaviour = this.script.length > 0 ? this.script.shift()! : this.fallback;
      this.received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8'), status: behaviour, at: Date.now() });
      if (behaviour === 'reset') return req.socket.destroy();
      if (behaviour === 'hang') return;
      if (behaviour === 'endless') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 120);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        return pump();
      }
      res.writeHead(behaviour, { 'content-type': 'text/plain' });
      res.end('thanks');
    });
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
