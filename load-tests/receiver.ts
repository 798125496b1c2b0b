// The callback receiver: a plain HTTP server on loopback that the callback triggers POST to. Each
// delivery is timed on arrival, its Standard Webhooks signature verified with the application's
// webhook secret (webhook-verify.ts), and reduced to a ReceivedEvent. It can refuse a share of
// first deliveries (503) to make the service retry.
//
// The answer depends only on the arrival and the webhook-id header, so checking the signature and
// reading the body wait until someone asks for `deliveries` (after the load phase): a real
// application's server runs on its own machine, and here every µs the receiver spends during the
// load is taken from the two cores the service is measured on. The check itself is unchanged, and
// made against the arrival time.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mixKey } from './rng.js';
import { parseCallback, type ReceivedEvent } from './received.js';
import { WebhookVerifier } from './webhook-verify.js';

export interface ReceiverOptions {
  /** whsec_… secret; without it signatures are not checked (and the report says so). */
  webhookSecret?: string;
  /** Share of events whose first delivery is refused with 503. */
  refuseFirstShare?: number;
  seed?: number;
  host?: string;
  /** Largest body accepted; callbacks are a few kB. */
  maxBodyBytes?: number;
  /**
   * Deliveries kept unread at most (each ~2 kB in the harness's batch runs): beyond it they are read
   * at once, so a long run's memory stays bounded. Default 400,000 (~800 MB): the goal scenarios'
   * 90 s runs receive up to ~240,000.
   */
  maxUnread?: number;
}

/** The receiver's answer while it is "down" (--receiver-outage): nothing is recorded. */
const DOWN = 503;

/** An accepted delivery as it arrived, read and checked later (see the top of the file). */
interface Arrival {
  path: string;
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  body: Buffer | string;
  arrivalAt: number;
}

export class CallbackReceiver {
  refused = 0;
  badRequests = 0;
  private readonly seenIds = new Set<string>();
  private readonly refusedIds = new Set<string>();
  private server?: http.Server;
  private webhook?: WebhookVerifier;
  private arrivals: Arrival[] = [];
  private readonly read: ReceivedEvent[] = [];
  private readonly problemSamples: Array<{ path: string; problems: string[]; body: string }> = [];
  private anonymous = 0;
  /** Epoch ms until which every delivery is refused (an outage). */
  private downUntil = 0;

  constructor(private readonly o: ReceiverOptions = {}) {
    if (o.webhookSecret) this.webhook = new WebhookVerifier(o.webhookSecret);
  }

  /** Accepted deliveries (answered 2xx), in arrival order, each read and checked. */
  get deliveries(): ReceivedEvent[] {
    this.readArrivals();
    return this.read;
  }

  /** Raw bodies of the first few problem deliveries, for the report. */
  get samples(): Array<{ path: string; problems: string[]; body: string }> {
    this.readArrivals();
    return this.problemSamples;
  }

  /** Accepted deliveries so far, read or not (cheap: for polling while they arrive). */
  get accepted(): number {
    return this.read.length + this.arrivals.length;
  }

  /** Accepted deliveries not read yet (at most `maxUnread`). */
  get unread(): number {
    return this.arrivals.length;
  }

  /** Distinct event ids accepted so far (the live "events received" figure). */
  get uniqueEvents(): number {
    return this.seenIds.size;
  }

  /** Refused deliveries whose retry has not arrived yet. */
  get awaitingRetry(): number {
    let n = 0;
    for (const id of this.refusedIds) if (!this.seenIds.has(id)) n++;
    return n;
  }

  get signatureChecked(): boolean {
    return this.webhook !== undefined;
  }

  async start(port = 0): Promise<string> {
    const max = this.o.maxBodyBytes ?? 1024 * 1024;
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= max) chunks.push(c);
      });
      req.on('end', () => {
        const arrivalAt = Date.now();
        if (req.method !== 'POST' || size > max) {
          this.badRequests++;
          res.writeHead(req.method !== 'POST' ? 405 : 413).end();
          return;
        }
        const status = this.handle(req.url ?? '/', req.headers, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), arrivalAt);
        res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? '{"ok":true}' : '{"retry":true}');
      });
      req.on('error', () => res.destroy());
    });
    this.server.keepAliveTimeout = 30_000;
    const host = this.o.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    const addr = this.server.address() as AddressInfo;
    return `http://${host}:${addr.port}`;
  }

  /** Refuses every delivery for `seconds` from now (the receiver is down), then accepts again. */
  outage(seconds: number): void {
    this.downUntil = Date.now() + seconds * 1000;
  }

  /** Returns the status to answer with; the delivery is read later (`readArrivals`). */
  handle(url: string, headers: http.IncomingHttpHeaders, body: Buffer | string, arrivalAt: number): number {
    const h = (name: string) => {
      const v = headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const id = h('webhook-id');
    if (arrivalAt < this.downUntil) {
      if (id && !this.seenIds.has(id)) this.refusedIds.add(id);
      this.refused++;
      return DOWN;
    }
    if (id && this.o.refuseFirstShare && !this.refusedIds.has(id) && !this.seenIds.has(id)) {
      if (mixKey(this.o.seed ?? 0, 'refuse', id) / 0x1_0000_0000 < this.o.refuseFirstShare) {
        this.refusedIds.add(id);
        this.refused++;
        return 503;
      }
    }
    this.arrivals.push({ path: url.split('?')[0], id, timestamp: h('webhook-timestamp'), signature: h('webhook-signature'), body, arrivalAt });
    this.seenIds.add(id ?? `anonymous-${this.anonymous++}`);
    if (this.arrivals.length >= (this.o.maxUnread ?? 400_000)) this.readArrivals();
    return 200;
  }

  /** Checks and reads the deliveries that arrived since the last call, in arrival order. */
  private readArrivals(): void {
    if (this.arrivals.length === 0) return;
    const batch = this.arrivals;
    this.arrivals = [];
    for (const a of batch) {
      const body = typeof a.body === 'string' ? a.body : a.body.toString('utf8');
      const problems: string[] = [];
      const invalid = this.webhook?.problem(a.id, a.timestamp, a.signature, body, a.arrivalAt);
      if (invalid) problems.push(`signature not valid: ${invalid}`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        problems.push('body is not JSON');
      }
      const ev = parseCallback(parsed, a.id, a.path, a.arrivalAt);
      ev.problems.unshift(...problems);
      if (!a.id) ev.problems.push('no webhook-id header');
      if (ev.problems.length > 0 && this.problemSamples.length < 20) this.problemSamples.push({ path: a.path, problems: [...ev.problems], body: body.slice(0, 4000) });
      this.read.push(ev);
    }
  }

  async stop(): Promise<void> {
    const s = this.server;
    if (!s) return;
    this.server = undefined;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
