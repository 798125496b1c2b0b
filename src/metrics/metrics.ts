// The service's Prometheus metrics (docs/operations.md "Metrics"): one registry per running
// service (plugins/metrics.ts makes it and closes it with the app), its instruments named here
// once. The parts that count (engine, delivery, store) call the methods below; the figures that
// are a state (outbox, failing receivers, shard queues) are read when scraped, through the readers
// the parts register. No label takes a value from users, URLs or ids: every label has a small
// fixed set of values, and each labelled series is made once, here.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export const DECISION_KINDS = ['transition', 'fired', 'gated', 'dropped'] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];
export const FIRING_EVENTS = ['enter', 'leave', 'dwell'] as const;
export type FiringEvent = (typeof FIRING_EVENTS)[number];
export const GATES = ['date_window', 'time_window', 'rate_limit', 'one_time_spent', 'trigger_inactive'] as const;
export type Gate = (typeof GATES)[number];
/** An attempt's outcome: its status class, or what failed when no status came back. */
export const ATTEMPT_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'timeout', 'refused', 'reset', 'dns', 'tls', 'ssrf', 'other'] as const;
export type AttemptClass = (typeof ATTEMPT_CLASSES)[number];

/** What the parts hand in to be read at scrape time. */
export interface MetricReaders {
  /** Callbacks waiting to be sent (pending or leased), counted up to a cap, and when the oldest of them was stored (null: none). */
  outbox?: () => Promise<{ depth: number; oldestAt: number | null }>;
  /** Receivers (origins) whose last round ended in a retry. */
  failingReceivers?: () => number;
  /** Requests queued per shard thread (the one running included). */
  shardQueues?: () => readonly number[];
}

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600];
const WRITE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const PREFIX = 'geotrigger_';

/** One child per label value, made at start: counting is a lookup, never a label built per call. */
function children<V extends string>(c: Counter<string>, values: readonly V[]): Record<V, Counter.Internal> {
  const out = {} as Record<V, Counter.Internal>;
  for (const v of values) {
    out[v] = c.labels(v);
    // Every series from the start, at 0: a rate over a series that appears late misses its first count.
    out[v].inc(0);
  }
  return out;
}

export class Metrics {
  readonly registry = new Registry();
  /** Outbox rows counted at most per scrape: the count's cost stays bounded on a large backlog. */
  readonly outboxCap: number;
  private readonly now: () => number;
  private readonly loop: IntervalHistogram;
  private readonly readers: MetricReaders = {};

  private readonly pointsReceived: Counter;
  private readonly pointsApplied: Counter;
  private readonly decisions: Record<DecisionKind, Counter.Internal>;
  private readonly firings: Record<FiringEvent, Counter.Internal>;
  private readonly gated: Record<Gate, Counter.Internal>;
  private readonly attempts: Record<AttemptClass, Counter.Internal>;
  private readonly latency: Histogram;
  private readonly storeWrites: Histogram;
  private readonly outboxDepth: Gauge;
  private readonly outboxOldest: Gauge;

  constructor(o: { now?: () => number; outboxCap?: number } = {}) {
    this.now = o.now ?? Date.now;
    this.outboxCap = o.outboxCap ?? 100_000;
    const registers = [this.registry];
    this.pointsReceived = new Counter({ name: `${PREFIX}points_received_total`, help: 'Location points read from accepted location updates', registers });
    this.pointsApplied = new Counter({
      name: `${PREFIX}points_applied_total`, help: 'Points the trigger machines evaluated (newer than the user\'s last applied point)', registers,
    });
    this.decisions = children(new Counter({
      name: `${PREFIX}decisions_total`, help: 'Machine decisions stored, by kind: fired, gated, transition (moved, nothing to fire), dropped (left a layer, place gone)',
      labelNames: ['kind'], registers,
    }), DECISION_KINDS);
    this.firings = children(new Counter({ name: `${PREFIX}firings_total`, help: 'Firings recorded, by event', labelNames: ['event'], registers }), FIRING_EVENTS);
    this.gated = children(new Counter({ name: `${PREFIX}gated_firings_total`, help: 'Firings a gate stopped, by gate', labelNames: ['gate'], registers }), GATES);
    this.attempts = children(new Counter({
      name: `${PREFIX}delivery_attempts_total`, help: 'Callback HTTP attempts, by outcome: status class, or the failure when no status came back', labelNames: ['outcome'], registers,
    }), ATTEMPT_CLASSES);
    this.latency = new Histogram({ name: `${PREFIX}delivery_latency_seconds`, help: 'From a firing being stored to its callback\'s 2xx', buckets: LATENCY_BUCKETS, registers });
    this.storeWrites = new Histogram({
      name: `${PREFIX}store_write_seconds`, help: 'Durable writes of the store: one group commit (embedded), one write command (MongoDB)', buckets: WRITE_BUCKETS, registers,
    });

    // Not enabled until start(): a context made for a unit test holds no timer.
    this.loop = monitorEventLoopDelay({ resolution: 20 });
    const lag: Gauge = new Gauge({
      name: `${PREFIX}event_loop_lag_seconds`, help: 'Event-loop delay of the main thread since the last scrape, p99', registers,
      collect: () => {
        lag.set(this.loop.count > 0 ? this.loop.percentile(99) / 1e9 : 0);
        this.loop.reset();
      },
    });
    this.outboxDepth = new Gauge({ name: `${PREFIX}outbox_depth`, help: `Callbacks still to be sent (pending or leased), counted up to ${this.outboxCap}`, registers });
    this.outboxOldest = new Gauge({ name: `${PREFIX}outbox_oldest_age_seconds`, help: 'Age of the oldest callback still to be sent (0 when none)', registers });
    const failing: Gauge = new Gauge({
      name: `${PREFIX}receivers_failing`, help: 'Callback receivers (origins) whose last round ended in a retry', registers,
      collect: () => failing.set(this.readers.failingReceivers?.() ?? 0),
    });
    const queues: Gauge = new Gauge({
      name: `${PREFIX}shard_queue_depth`, help: 'Requests queued per shard thread, the running one included', labelNames: ['shard'], registers,
      collect: () => (this.readers.shardQueues?.() ?? []).forEach((n, i) => queues.set({ shard: String(i) }, n)),
    });
    // Memory and CPU read here: prom-client's default metrics start an event-loop monitor and a GC
    // observer that nothing can stop, one more for every app a process builds.
    const memory: Gauge = new Gauge({
      name: `${PREFIX}process_memory_bytes`, help: 'Memory of the process, by kind', labelNames: ['kind'], registers,
      collect: () => {
        const m = process.memoryUsage();
        memory.set({ kind: 'rss' }, m.rss);
        memory.set({ kind: 'heap_used' }, m.heapUsed);
        memory.set({ kind: 'heap_total' }, m.heapTotal);
        memory.set({ kind: 'external' }, m.external);
        memory.set({ kind: 'array_buffers' }, m.arrayBuffers);
      },
    });
    let cpuSeen = { user: 0, system: 0 };
    const cpu: Counter = new Counter({
      name: `${PREFIX}process_cpu_seconds_total`, help: 'CPU time of the process (every thread), by mode', labelNames: ['mode'], registers,
      collect: () => {
        const c = process.cpuUsage();
        cpu.inc({ mode: 'user' }, Math.max(0, c.user - cpuSeen.user) / 1e6);
        cpu.inc({ mode: 'system' }, Math.max(0, c.system - cpuSeen.system) / 1e6);
        cpuSeen = c;
      },
    });
  }

  /** A part registers what it can tell when scraped. */
  read(readers: MetricReaders): void {
    Object.assign(this.readers, readers);
  }

  start(): void {
    this.loop.enable();
  }

  close(): void {
    this.loop.disable();
  }

  received(points: number): void {
    if (points > 0) this.pointsReceived.inc(points);
  }

  applied(points: number): void {
    if (points > 0) this.pointsApplied.inc(points);
  }

  decided(kind: DecisionKind): void {
    this.decisions[kind].inc();
  }

  fired(event: FiringEvent): void {
    this.firings[event].inc();
  }

  gatedBy(gate: Gate): void {
    this.gated[gate].inc();
  }

  attempted(outcome: AttemptClass): void {
    this.attempts[outcome].inc();
  }

  /** A callback answered 2xx `ms` after its firing was stored. */
  delivered(ms: number): void {
    this.latency.observe(Math.max(0, ms) / 1000);
  }

  /** A durable write of the store took `ms`. */
  stored(ms: number): void {
    this.storeWrites.observe(ms / 1000);
  }

  /** The text a scrape gets. The outbox is read first, once: its two gauges come from one read. */
  async text(): Promise<string> {
    // A store that cannot answer now (a full disk, MongoDB away) leaves the rest of the scrape
    // standing: its two figures are NaN, which Prometheus stores as such.
    const o = await this.readers.outbox?.().catch(() => ({ depth: NaN, oldestAt: NaN }));
    this.outboxDepth.set(o?.depth ?? 0);
    this.outboxOldest.set(o?.oldestAt == null ? 0 : Number.isNaN(o.oldestAt) ? NaN : Math.max(0, (this.now() - o.oldestAt) / 1000));
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
