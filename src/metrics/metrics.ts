// The service's Prometheus metrics (docs/operations.md "Metrics"): one registry per running
// service, its instruments named here once. The parts that count (ingest, engine, delivery, store)
// call the methods below; the figures that are a state (outbox depth, failing receivers, shard
// queues) are read when scraped, through the readers the plugins register. No label takes a value
// from users, URLs or ids: every label has a small fixed set of values.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type DecisionKind = 'transition' | 'fired' | 'gated' | 'point';
export type AttemptClass = '2xx' | '3xx' | '4xx' | '5xx' | 'timeout' | 'refused' | 'tls' | 'ssrf' | 'dns' | 'error';

/** What the plugins hand in to be read at scrape time. */
export interface MetricReaders {
  /** Callbacks waiting to be sent (not yet delivered or dead), and the age of the oldest one, seconds. */
  outbox?: () => Promise<{ depth: number; oldestAgeS: number }>;
  /** Receivers (origins) whose last attempts failed. */
  failingReceivers?: () => number;
  /** Requests waiting per shard thread. */
  shardQueues?: () => number[];
}

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600];
const WRITE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export class Metrics {
  readonly registry = new Registry();
  private readonly loop: IntervalHistogram;
  private readonly readers: MetricReaders = {};

  private readonly pointsReceived = this.counter('geotrigger_points_received_total', 'Location points accepted by location/update and friends');
  private readonly pointsApplied = this.counter('geotrigger_points_applied_total', 'Points the engine evaluated (newer than the user\'s last applied point)');
  private readonly decisions = new Counter({
    name: 'geotrigger_decisions_total', help: 'Engine decisions by kind (timeline entries)', labelNames: ['kind'] as const, registers: [this.registry],
  });
  private readonly firings = new Counter({
    name: 'geotrigger_firings_total', help: 'Firings recorded, by event', labelNames: ['event'] as const, registers: [this.registry],
  });
  private readonly gated = new Counter({
    name: 'geotrigger_gated_firings_total', help: 'Firings a gate stopped, by gate', labelNames: ['gate'] as const, registers: [this.registry],
  });
  private readonly attempts = new Counter({
    name: 'geotrigger_delivery_attempts_total', help: 'Callback delivery attempts, by outcome class', labelNames: ['outcome'] as const, registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'geotrigger_delivery_latency_seconds', help: 'From a firing to its callback\'s 2xx', buckets: LATENCY_BUCKETS, registers: [this.registry],
  });
  private readonly storeWrites = new Histogram({
    name: 'geotrigger_store_write_seconds', help: 'Durable writes of the store (one group commit each)', buckets: WRITE_BUCKETS, registers: [this.registry],
  });

  constructor() {
    this.loop = monitorEventLoopDelay({ resolution: 20 });
    this.loop.enable();
    const r = this.registry;
    new Gauge({
      name: 'geotrigger_event_loop_lag_seconds', help: 'Event-loop delay of the main thread since the last scrape: p99', registers: [r],
      collect: () => {
        this.gauge('geotrigger_event_loop_lag_seconds').set(this.loop.percentile(99) / 1e9);
        this.loop.reset();
      },
    });
    new Gauge({
      name: 'geotrigger_process_memory_bytes', help: 'Memory of the process, by kind', labelNames: ['kind'] as const, registers: [r],
      collect: () => {
        const m = process.memoryUsage();
        const g = this.gauge('geotrigger_process_memory_bytes');
        g.set({ kind: 'rss' }, m.rss);
        g.set({ kind: 'heap_used' }, m.heapUsed);
        g.set({ kind: 'external' }, m.external);
      },
    });
    new Gauge({
      name: 'geotrigger_outbox_depth', help: 'Callbacks waiting to be delivered', registers: [r],
      collect: async () => {
        const o = await this.readers.outbox?.();
        this.gauge('geotrigger_outbox_depth').set(o?.depth ?? 0);
        this.gauge('geotrigger_outbox_oldest_age_seconds').set(o?.oldestAgeS ?? 0);
      },
    });
    new Gauge({ name: 'geotrigger_outbox_oldest_age_seconds', help: 'Age of the oldest callback waiting (0 when none)', registers: [r] });
    new Gauge({
      name: 'geotrigger_receivers_failing', help: 'Callback receivers (origins) whose last attempts failed', registers: [r],
      collect: () => this.gauge('geotrigger_receivers_failing').set(this.readers.failingReceivers?.() ?? 0),
    });
    new Gauge({
      name: 'geotrigger_shard_queue_depth', help: 'Requests waiting per shard thread', labelNames: ['shard'] as const, registers: [r],
      collect: () => {
        const g = this.gauge('geotrigger_shard_queue_depth');
        (this.readers.shardQueues?.() ?? []).forEach((n, i) => g.set({ shard: String(i) }, n));
      },
    });
  }

  /** A part registers what it can tell when scraped. */
  read(readers: MetricReaders): void {
    Object.assign(this.readers, readers);
  }

  received(points: number): void {
    this.pointsReceived.inc(points);
  }

  applied(points: number): void {
    if (points > 0) this.pointsApplied.inc(points);
  }

  decided(kind: DecisionKind, n = 1): void {
    if (n > 0) this.decisions.inc({ kind }, n);
  }

  fired(event: 'enter' | 'leave' | 'dwell'): void {
    this.firings.inc({ event });
  }

  gatedBy(gate: string): void {
    this.gated.inc({ gate });
  }

  attempted(outcome: AttemptClass): void {
    this.attempts.inc({ outcome });
  }

  /** A callback answered 2xx `ms` after its firing. */
  delivered(ms: number): void {
    this.latency.observe(Math.max(0, ms) / 1000);
  }

  stored(ms: number): void {
    this.storeWrites.observe(ms / 1000);
  }

  /** The text a scrape gets. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  close(): void {
    this.loop.disable();
  }

  private counter(name: string, help: string): Counter {
    return new Counter({ name, help, registers: [this.registry] });
  }

  private gauge(name: string): Gauge {
    return this.registry.getSingleMetric(name) as Gauge;
  }
}
