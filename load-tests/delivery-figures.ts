// What delivery cost and how well it kept up (issue 33): callbacks delivered per second, the
// service's CPU from the first point until the last callback arrived (per point and per callback),
// the backlog of callbacks caused but not yet arrived when the load stopped, and, with
// --receiver-outage, how long after the receiver's return the last held-back event arrived.
import type { Matched } from './match.js';
import { cpuSeconds } from './processes.js';

export interface DeliveryFigures {
  /** Callbacks that arrived during the measured window, per second of it. */
  events_delivered_per_s: number;
  /** Callbacks the oracle expects per accepted point (the world's event density). */
  events_per_point: number | null;
  /** Expected callbacks caused during the load that had not arrived when it stopped. */
  backlog_at_load_end: number;
  /** That backlog in seconds of the rate callbacks were caused at. */
  backlog_s: number | null;
  /** Seconds from the end of the load until the last callback it caused arrived. */
  drain_s: number | null;
  /**
   * Service CPU from the first point until the last callback caused during the load arrived, per
   * accepted point (µs). Dwell callbacks the clock fires later are left out (and the idle seconds
   * before them).
   */
  all_in_cpu_us_per_point: number | null;
  /** The same CPU per callback delivered (µs): ingest included, an upper bound of delivery's cost. */
  all_in_cpu_us_per_callback: number | null;
  /** Service CPU after the load stopped, per callback that arrived then (µs; null below 100 of them): delivery alone. */
  drain_cpu_us_per_callback: number | null;
  /** --receiver-outage: seconds it lasted, and from its end until the last event it held back arrived. */
  outage: { seconds: number; recovered_after_s: number | null } | null;
}

/** Samples the service's CPU at the load's start and end and at the latest arrival of a callback. */
export class DeliveryWatch {
  private startCpu?: number;
  private endCpu?: number;
  /** The CPU (s) when new arrivals were first seen, in time order. */
  private readonly samples: Array<{ at: number; cpu: number }> = [];
  private lastCount = -1;

  constructor(private readonly pid: number | undefined) {}

  private cpu(): number | undefined {
    return this.pid === undefined ? undefined : cpuSeconds(this.pid)?.all;
  }

  loadStarted(): void {
    this.startCpu = this.cpu();
  }

  loadEnded(arrived: number): void {
    this.endCpu = this.cpu();
    this.seen(arrived);
  }

  /** Called as callbacks keep arriving (the settle loop): the CPU whenever more have arrived. */
  seen(arrived: number): void {
    if (arrived === this.lastCount) return;
    this.lastCount = arrived;
    const cpu = this.cpu();
    if (cpu !== undefined) this.samples.push({ at: Date.now(), cpu });
  }

  /** The CPU at the first sample taken at or after `at` (the settle loop samples every 250 ms). */
  private cpuAt(at: number): number | undefined {
    return this.samples.find((s) => s.at >= at)?.cpu ?? this.samples.at(-1)?.cpu;
  }

  figures(o: {
    matched: readonly Matched[];
    missedCallbacks: number;
    callbacks: number;
    points: number;
    loadStartedAt: number;
    measuredFrom: number;
    loadEndedAt: number;
    outage?: { from: number; seconds: number };
  }): DeliveryFigures {
    const callbacks = o.matched.filter((m) => m.received.source === 'callback');
    const arrivals = callbacks.map((m) => m.received.arrivalAt ?? 0);
    const measuredS = Math.max(0.001, (o.loadEndedAt - o.measuredFrom) / 1000);
    const loadS = Math.max(0.001, (o.loadEndedAt - o.loadStartedAt) / 1000);
    const inWindow = arrivals.filter((t) => t >= o.measuredFrom && t <= o.loadEndedAt).length;
    const caused = callbacks.filter((m) => m.expected.causeAt <= o.loadEndedAt);
    const backlog = caused.filter((m) => (m.received.arrivalAt ?? Infinity) > o.loadEndedAt).length + o.missedCallbacks;
    const causedArrivals = caused.map((m) => m.received.arrivalAt ?? 0);
    const last = causedArrivals.length > 0 ? causedArrivals.reduce((a, b) => Math.max(a, b)) : undefined;
    const afterLoad = causedArrivals.filter((t) => t > o.loadEndedAt).length;
    const lastCpu = last !== undefined ? this.cpuAt(Math.max(last, o.loadEndedAt)) : undefined;
    const allIn = this.startCpu !== undefined && lastCpu !== undefined ? (lastCpu - this.startCpu) * 1e6 : undefined;
    const drain = this.endCpu !== undefined && lastCpu !== undefined && last !== undefined && last > o.loadEndedAt ? (lastCpu - this.endCpu) * 1e6 : undefined;
    let outage: DeliveryFigures['outage'] = null;
    if (o.outage) {
      const end = o.outage.from + o.outage.seconds * 1000;
      const held = callbacks.filter((m) => m.expected.causeAt < end).map((m) => m.received.arrivalAt ?? Infinity);
      const lastHeld = held.length > 0 ? held.reduce((a, b) => Math.max(a, b)) : undefined;
      outage = { seconds: o.outage.seconds, recovered_after_s: lastHeld === undefined || !Number.isFinite(lastHeld) ? null : round1(Math.max(0, lastHeld - end) / 1000) };
    }
    return {
      events_delivered_per_s: Math.round(inWindow / measuredS),
      events_per_point: o.points > 0 ? Math.round(((callbacks.length + o.missedCallbacks) / o.points) * 1000) / 1000 : null,
      backlog_at_load_end: backlog,
      backlog_s: caused.length > 0 ? round1(backlog / (caused.length / loadS)) : null,
      drain_s: last !== undefined ? round1(Math.max(0, last - o.loadEndedAt) / 1000) : null,
      all_in_cpu_us_per_point: allIn !== undefined && o.points > 0 ? Math.round(allIn / o.points) : null,
      all_in_cpu_us_per_callback: allIn !== undefined && o.callbacks > 0 ? Math.round(allIn / o.callbacks) : null,
      drain_cpu_us_per_callback: drain !== undefined && afterLoad >= 100 ? Math.round(drain / afterLoad) : null,
      outage,
    };
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** The report's lines about delivery. */
export function deliveryLines(d: DeliveryFigures | null): string[] {
  if (!d) return [];
  return [
    `  delivery: ${d.events_delivered_per_s} callbacks/s delivered (${d.events_per_point ?? '—'} per point); backlog when the load stopped ${d.backlog_at_load_end} (${d.backlog_s ?? '—'} s of events), last arrival ${d.drain_s ?? '—'} s after it`,
    `  delivery CPU (service, first point to last callback): ${d.all_in_cpu_us_per_point ?? '—'} µs per point, ${d.all_in_cpu_us_per_callback ?? '—'} µs per callback; after the load ${d.drain_cpu_us_per_callback ?? '—'} µs per callback`,
    ...(d.outage ? [`  receiver outage of ${d.outage.seconds} s: the last event it held back arrived ${d.outage.recovered_after_s ?? 'never'} s after the receiver's return`] : []),
  ];
}
