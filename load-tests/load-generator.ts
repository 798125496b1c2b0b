// The load generator: phones take turns sending their points to location/update, one request in
// flight per phone (so the server receives each phone's points in order), single points or batches,
// at a target rate (requests scheduled by the clock, open loop) or as fast as `concurrency`
// connections allow. Device timestamps are the wall clock when a point is taken, so dwell deadlines
// are real time. Quiet phones send nothing for a while; late phones record offline and upload the
// backlog when back. It records, per phone, each point's device time and each request's send and
// acknowledgement times: enough for the oracle to rebuild every point exactly.
import { HttpClient } from './http-client.js';
import { batchJson, makePoint, makeStalePoint, type PointContext, type SimPoint } from './points.js';
import { Rng } from './rng.js';
import type { Plan } from './tracks.js';

export interface RequestRecord {
  /** Index of the request's first point in the phone's point list, and how many it carried. */
  first: number;
  count: number;
  sentAt: number;
  ackAt: number;
  ok: boolean;
}

export interface PhoneRecord {
  /** Device time of every point the phone sent, by point index. */
  times: number[];
  /** Indexes of the deliberately stale points. */
  stale: Set<number>;
  requests: RequestRecord[];
}

export interface LoadOptions {
  baseUrl: string;
  /** One access token per phone (any string for the baseline). */
  tokens: string[];
  ctx: Omit<PointContext, 'runStart'>;
  /** Whole load phase, warm-up included. */
  durationMs: number;
  batch: number;
  /** Target points per second; undefined: as fast as the connections allow. */
  ratePps?: number;
  concurrency: number;
  /** Share of requests that also carry one stale point. */
  staleShare: number;
  /** Keep per-phone records (the service run); the baseline only counts. */
  record: boolean;
  requestTimeoutMs?: number;
  maxAttempts?: number;
  /**
   * Warm-up: requests acknowledged in the first this many ms go to the timeline but not to the
   * measured figures (`measuredPoints`, `measuredRequests`, `latencies`). 0 by default.
   */
  warmupMs?: number;
}

export interface TimelineBucket {
  requests: number;
  points: number;
  errors: number;
}

export interface LoadStats {
  startedAt: number;
  endedAt: number;
  attempts: number;
  okRequests: number;
  points: number;
  httpErrors: number;
  errorsByStatus: Record<string, number>;
  errorSamples: Array<{ status: number | string; body: string }>;
  /** Epoch ms from which requests count in the measured figures (startedAt without a warm-up). */
  measuredFrom: number;
  /** Acknowledged requests and their points after the warm-up (okRequests and points count all). */
  measuredRequests: number;
  measuredPoints: number;
  /** Per request acknowledged after the warm-up, ms (from the scheduled slot when rate-limited). */
  latencies: number[];
  timeline: TimelineBucket[];
  /** Slots the rate schedule could not use because every connection or phone was busy. */
  missedSlots: number;
}

export interface Phone {
  index: number;
  token: string;
  plan: Plan;
  rec: PhoneRecord;
  lastT: number;
  lastAckedT?: number;
  inFlight: boolean;
  done: boolean;
  offlineNext: number;
  backlog?: number[];
  reqSeq: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const yieldToIo = () => new Promise<void>((r) => setImmediate(r));

export class LoadGenerator {
  readonly stats: LoadStats;
  readonly phones: Phone[];
  readonly excluded = new Set<number>();
  private runStart = 0;
  private cursor = 0;
  private stopping = false;
  private readonly http: HttpClient;

  constructor(private readonly o: LoadOptions) {
    this.http = new HttpClient(o.baseUrl, o.concurrency, o.requestTimeoutMs ?? 30_000);
    this.phones = o.tokens.map((token, index) => ({
      index, token, plan: o.ctx.plans[index], rec: { times: [], stale: new Set(), requests: [] },
      lastT: 0, inFlight: false, done: false, offlineNext: 0, reqSeq: 0,
    }));
    this.stats = {
      startedAt: 0, endedAt: 0, measuredFrom: 0, measuredRequests: 0, measuredPoints: 0, attempts: 0, okRequests: 0, points: 0, httpErrors: 0, errorsByStatus: {},
      errorSamples: [], latencies: [], timeline: [], missedSlots: 0,
    };
  }

  // Made once per run, not per request: the spread showed in the harness's profile (0.6 %).
  private ctx?: PointContext;

  get pointContext(): PointContext {
    if (this.ctx?.runStart !== this.runStart) this.ctx = { ...this.o.ctx, runStart: this.runStart };
    return this.ctx;
  }

  stop(): void {
    this.stopping = true;
  }

  async run(): Promise<LoadStats> {
    this.runStart = Date.now();
    this.stats.startedAt = this.runStart;
    this.stats.measuredFrom = this.runStart + (this.o.warmupMs ?? 0);
    for (const p of this.phones) p.lastT = this.runStart - 1;
    const endAt = this.runStart + this.o.durationMs;
    const workers = Array.from({ length: this.o.concurrency }, () => this.worker(endAt));
    if (this.o.ratePps) await Promise.all([...workers, this.schedule(endAt)]);
    else await Promise.all(workers);
    this.stats.endedAt = Date.now();
    await this.http.close();
    return this.stats;
  }

  // Open-loop schedule: slot i at start + i / (requests per second); workers take slots.
  private slots: number[] = [];
  private slotWaiters: Array<(slot: number | undefined) => void> = [];

  private async schedule(endAt: number): Promise<void> {
    const perReq = 1000 / (this.o.ratePps! / this.o.batch);
    let i = 0;
    while (!this.stopping) {
      const at = this.runStart + i * perReq;
      if (at >= endAt) break;
      const wait = at - Date.now();
      // Not due yet: sleep at least a millisecond, then release every slot that fell due
      // meanwhile (slots closer than that, above 1,000 requests/s, go out a few at a time;
      // latency still counts from each slot's own time). Never spin: the CPU is the service's.
      if (wait > 0) {
        await sleep(Math.min(Math.max(wait, 1), 50));
        continue;
      }
      // Catching up on due slots: let the connections run every few slots.
      if (i % 16 === 15) await yieldToIo();
      i++;
      const waiter = this.slotWaiters.shift();
      if (waiter) waiter(at);
      else {
        // Every connection is busy: the slot is late; keep a bounded backlog of them.
        if (this.slots.length < this.o.concurrency * 4) this.slots.push(at);
        else this.stats.missedSlots++;
      }
    }
    this.scheduleDone = true;
    for (const w of this.slotWaiters.splice(0)) w(undefined);
  }

  private scheduleDone = false;

  private takeSlot(): Promise<number | undefined> {
    const s = this.slots.shift();
    if (s !== undefined) return Promise.resolve(s);
    if (this.stopping || this.scheduleDone) return Promise.resolve(undefined);
    return new Promise((resolve) => this.slotWaiters.push(resolve));
  }

  private async worker(endAt: number): Promise<void> {
    while (!this.stopping && Date.now() < endAt) {
      let slot: number | undefined;
      if (this.o.ratePps) {
        slot = await this.takeSlot();
        if (slot === undefined || slot >= endAt) return;
      }
      let picked = this.pick();
      // No phone ready: try again shortly (bounded by the end of the run).
      while (!picked && !this.stopping && Date.now() < endAt) {
        await sleep(1);
        picked = this.pick();
      }
      if (!picked) return;
      await this.send(picked.phone, picked.points, slot);
    }
  }

  /** The next phone with something to send, and its points (round robin). */
  private pick(): { phone: Phone; points: SimPoint[] } | undefined {
    const n = this.phones.length;
    const now = Date.now();
    for (let scanned = 0; scanned < n; scanned++) {
      const phone = this.phones[this.cursor];
      this.cursor = (this.cursor + 1) % n;
      if (phone.inFlight || phone.done) continue;
      const times = this.nextTimes(phone, now);
      if (!times) continue;
      return { phone, points: this.makePoints(phone, times) };
    }
    return undefined;
  }

  /** Device times of the phone's next request, or undefined when it has nothing to send now. */
  private nextTimes(phone: Phone, now: number): number[] | undefined {
    const rel = now - this.runStart;
    const plan = phone.plan;
    const batch = this.o.batch;
    if (plan.quiet && rel >= plan.quiet.from && rel < plan.quiet.to) {
      if (plan.quiet.to === Infinity) phone.done = true;
      return undefined;
    }
    const w = plan.offline[phone.offlineNext];
    if (w && rel >= w.from) {
      if (rel < w.to) return undefined;
      if (!phone.backlog) {
        // Recorded once a second while offline, uploaded now.
        phone.backlog = [];
        for (let t = Math.max(phone.lastT + 1, this.runStart + Math.ceil(w.from)); t < this.runStart + w.to; t += 1000) phone.backlog.push(t);
      }
      if (phone.backlog.length > 0) return phone.backlog.splice(0, batch);
      phone.backlog = undefined;
      phone.offlineNext++;
    }
    let floor = phone.lastT;
    if (plan.quiet && rel >= plan.quiet.to) floor = Math.max(floor, this.runStart + Math.ceil(plan.quiet.to));
    if (batch === 1) return now > floor ? [now] : undefined;
    const span = now - floor;
    if (span < batch) return undefined;
    const times: number[] = [];
    for (let i = 1; i <= batch; i++) times.push(floor + Math.round((span * i) / batch));
    return times;
  }

  private makePoints(phone: Phone, times: number[]): SimPoint[] {
    const ctx = this.pointContext;
    const rec = phone.rec;
    const points: SimPoint[] = [];
    const staleRng = new Rng(ctx.seed, 'stale-request', phone.index, phone.reqSeq);
    if (this.o.staleShare > 0 && phone.lastAckedT !== undefined && staleRng.chance(this.o.staleShare)) {
      const k = rec.times.length;
      const t = phone.lastAckedT - staleRng.int(1, 1500);
      points.push(makeStalePoint(ctx, phone.index, k, t));
      rec.times.push(t);
      rec.stale.add(k);
    }
    for (const t of times) {
      points.push(makePoint(ctx, phone.index, rec.times.length, t));
      rec.times.push(t);
      phone.lastT = Math.max(phone.lastT, t);
    }
    return points;
  }

  private async send(phone: Phone, points: SimPoint[], slot: number | undefined): Promise<void> {
    phone.inFlight = true;
    const first = phone.rec.times.length - points.length;
    const body = batchJson(points, first);
    const maxAttempts = this.o.maxAttempts ?? 3;
    const sentAt = Date.now();
    let ok = false;
    let ackAt = sentAt;
    for (let attempt = 1; attempt <= maxAttempts && !ok; attempt++) {
      this.stats.attempts++;
      let status: number | string;
      let text = '';
      try {
        const res = await this.http.request('POST', '/1/location/update', { headers: { authorization: `OAuth ${phone.token}` }, rawJson: body });
        status = res.status;
        text = res.text;
      } catch (err) {
        status = (err as { code?: string }).code ?? 'network';
        text = (err as Error).message;
      }
      ackAt = Date.now();
      if (status === 200) {
        ok = true;
        break;
      }
      this.stats.httpErrors++;
      this.bucket(ackAt).errors++;
      this.stats.errorsByStatus[status] = (this.stats.errorsByStatus[status] ?? 0) + 1;
      if (this.stats.errorSamples.length < 20) this.stats.errorSamples.push({ status, body: text.slice(0, 500) });
      // Client errors will not get better by retrying; server errors and resets may.
      const retryable = typeof status !== 'number' || status >= 500 || status === 429;
      if (!retryable) break;
      // Re-sending is safe: points as old as the last applied move nothing (machines/README.md).
      await sleep(50 * 4 ** (attempt - 1));
    }
    if (ok) {
      this.stats.okRequests++;
      this.stats.points += points.length;
      const b = this.bucket(ackAt);
      b.requests++;
      b.points += points.length;
      if (ackAt >= this.stats.measuredFrom) {
        this.stats.measuredRequests++;
        this.stats.measuredPoints += points.length;
        this.stats.latencies.push(ackAt - (slot ?? sentAt));
      }
      phone.lastAckedT = Math.max(phone.lastAckedT ?? -Infinity, phone.lastT);
    } else this.excluded.add(phone.index);
    if (this.o.record) phone.rec.requests.push({ first, count: points.length, sentAt, ackAt, ok });
    phone.reqSeq++;
    phone.inFlight = false;
  }

  private bucket(at: number): TimelineBucket {
    const i = Math.max(0, Math.floor((at - this.runStart) / 1000));
    while (this.stats.timeline.length <= i) this.stats.timeline.push({ requests: 0, points: 0, errors: 0 });
    return this.stats.timeline[i];
  }
}
