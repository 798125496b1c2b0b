// A real callback receiver for end-to-end engine tests: one HTTP server on 127.0.0.1 with an
// endpoint per test (its own path and the application's webhook secret), so concurrent tests do not
// see each other's callbacks. Every request is kept with its headers and raw body, and its
// Standard Webhooks signature is checked with the `standardwebhooks` package, as a receiver would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { waitFor } from './wait.js';

export interface CallbackRequest {
  headers: Record<string, string>;
  body: string;
  /** The status this receiver answered with. */
  status: number;
  webhookId: string;
  /** The parsed body when the signature verified, else undefined (see `verifyError`). */
  payload?: any;
  verifyError?: string;
}

export class Endpoint {
  readonly requests: CallbackRequest[] = [];
  private script: number[] = [];

  constructor(readonly url: string, private readonly secret: string) {}

  /** Statuses for the next requests, in order; 200 afterwards. */
  plan(statuses: number[]): this {
    this.script = [...statuses];
    return this;
  }

  /** Requests answered 2xx. */
  delivered(): CallbackRequest[] {
    return this.requests.filter((r) => r.status >= 200 && r.status < 300);
  }

  /** Payloads of the requests answered 2xx (signature verified), in arrival order. */
  events(): any[] {
    return this.delivered().map((r) => {
      if (r.payload === undefined) throw new Error(`callback ${r.webhookId} failed verification: ${r.verifyError}`);
      return r.payload;
    });
  }

  /** Polls until at least `n` callbacks were delivered; returns their payloads. */
  async waitFor(n: number, timeoutMs = 20_000): Promise<any[]> {
    await waitFor(`${n} callback(s) at ${this.url}`, () => this.delivered().length >= n, { timeoutMs });
    return this.events();
  }

  /** @internal */
  handle(headers: Record<string, string>, body: string): number {
    const status = this.script.length ? this.script.shift()! : 200;
    const req: CallbackRequest = { headers, body, status, webhookId: headers['webhook-id'] ?? '' };
    try {
      req.payload = new Webhook(this.secret).verify(body, headers);
    } catch (err) {
      req.verifyError = (err as Error).message;
    }
    this.requests.push(req);
    return status;
  }
}

export class CallbackReceiver {
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  private base = '';
  private seq = 0;

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** A fresh endpoint whose callbacks are verified with `webhookSecret`. */
  endpoint(webhookSecret: string): Endpoint {
    const path = `/hook/${++this.seq}`;
    const e = new Endpoint(`${this.base}${path}`, webhookSecret);
    this.endpoints.set(path, e);
    return e;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const e = this.endpoints.get(req.url ?? '');
      if (!e || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const status = e.handle(req.headers as Record<string, string>, Buffer.concat(chunks).toString('utf8'));
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  }
}
