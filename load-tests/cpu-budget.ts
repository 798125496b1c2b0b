// Where the cores went during a load phase: the server's threads (and its main thread alone) and
// the harness itself, which shares the box. From these, the two-core ceiling: the throughput the
// box would reach if every core were kept busy with the same CPU per point. The ratio of the
// service's ceiling to the baseline's is the best `ratio_to_baseline` that spreading the same work
// over more threads or processes could reach; beyond it only less CPU per point helps. Beside the
// CPU used, the time threads were runnable but waited for a core (Linux schedstat): how
// oversubscribed the shared cores were, which the averages above hide.
import { cpus } from 'node:os';
import { cpuSeconds, namedThreadSeconds, runQueueSeconds } from './processes.js';

export interface CpuShare {
  /** Cores' worth of CPU the server used: all threads, and its main thread alone. */
  server: number;
  serverMain: number;
  /** Cores' worth the harness process used (generator, receiver, oracle bookkeeping). */
  harness: number;
  /** The server's cores by thread: its main thread, its named threads (gt-shard-N, gt-sender), the rest. */
  serverThreads?: Record<string, number>;
  /** Cores' worth of time runnable but waiting for a core: the server's threads, its main thread, the harness's threads. */
  waiting?: { server: number; serverMain: number; harness: number };
}

export interface CpuReport {
  cores: number;
  service_cores: number;
  service_main_thread: number;
  harness_cores: number;
  /**
   * The service's cores by thread: `main`, each name its threads carry (`gt-shard-0`, `gt-sender`)
   * and `other` (V8's and libuv's helpers: garbage collection, compilation, file system).
   */
  service_threads: Record<string, number> | null;
  /** Share of the whole box busy with the service and the harness. */
  box_busy_share: number;
  ceiling_points_per_s: number;
  baseline: { server_cores: number; harness_cores: number; ceiling_points_per_s: number } | null;
  /** ceiling_points_per_s / baseline.ceiling_points_per_s. */
  ceiling_ratio: number | null;
  /**
   * Cores' worth of time the threads were ready to run but waited for a core (the service's, its
   * main thread's — i.e. the share of the phase it waited —, the harness's); null without schedstat.
   */
  waiting_for_core: { service: number; service_main_thread: number; harness: number } | null;
}

/** Starts measuring a server process and this one; stop() gives the average cores of each. */
export function cpuWatch(pid: number): { stop(): CpuShare | undefined } {
  const t0 = performance.now();
  const s0 = cpuSeconds(pid);
  const h0 = process.cpuUsage();
  const n0 = namedThreadSeconds(pid);
  const w0 = { server: runQueueSeconds(pid), harness: runQueueSeconds('self') };
  return {
    stop() {
      const seconds = (performance.now() - t0) / 1000;
      const s1 = cpuSeconds(pid);
      const h = process.cpuUsage(h0);
      const w1 = { server: runQueueSeconds(pid), harness: runQueueSeconds('self') };
      if (!s0 || !s1 || seconds <= 0) return undefined;
      // A thread that ended takes its waiting time with it: never below zero.
      const per = (a: number, b: number) => Math.max(0, b - a) / seconds;
      const waiting = w0.server && w1.server && w0.harness && w1.harness
        ? { server: per(w0.server.all, w1.server.all), serverMain: per(w0.server.main, w1.server.main), harness: per(w0.harness.all, w1.harness.all) }
        : undefined;
      const n1 = namedThreadSeconds(pid);
      const serverThreads = n0 && n1 ? threadShares(s1.all - s0.all, s1.main - s0.main, n0, n1, seconds) : undefined;
      return {
        server: (s1.all - s0.all) / seconds, serverMain: (s1.main - s0.main) / seconds, harness: (h.user + h.system) / 1e6 / seconds,
        ...(waiting ? { waiting } : {}), ...(serverThreads ? { serverThreads } : {}),
      };
    },
  };
}

/** Cores by thread over the window; `other` is what the process used beyond main and the named threads. */
export function threadShares(all: number, main: number, before: Record<string, number>, after: Record<string, number>, seconds: number): Record<string, number> {
  const out: Record<string, number> = { main: main / seconds };
  let named = 0;
  for (const [name, s] of Object.entries(after)) {
    const used = Math.max(0, s - (before[name] ?? 0));
    named += used;
    out[name] = used / seconds;
  }
  out.other = Math.max(0, all - main - named) / seconds;
  return out;
}

/** `main 0.46, gt-shard-0 0.35, gt-sender 0.12, other 0.1`: the service's cores by thread. */
export const threadList = (t: Record<string, number>) => Object.entries(t).map(([k, v]) => `${k} ${v}`).join(', ');

const ceiling = (pps: number, c: CpuShare, cores: number) => (c.server + c.harness > 0 ? (pps * cores) / (c.server + c.harness) : 0);
const r2 = (x: number) => Math.round(x * 100) / 100;

export function cpuReport(pps: number, service: CpuShare | undefined, baselinePps?: number, baseline?: CpuShare, cores = cpus().length): CpuReport | null {
  if (!service) return null;
  const mine = ceiling(pps, service, cores);
  const theirs = baseline && baselinePps ? ceiling(baselinePps, baseline, cores) : 0;
  return {
    cores,
    service_cores: r2(service.server),
    service_main_thread: r2(service.serverMain),
    harness_cores: r2(service.harness),
    service_threads: service.serverThreads ? Object.fromEntries(Object.entries(service.serverThreads).map(([k, v]) => [k, r2(v)])) : null,
    box_busy_share: r2((service.server + service.harness) / cores),
    ceiling_points_per_s: Math.round(mine),
    baseline: baseline && theirs > 0 ? { server_cores: r2(baseline.server), harness_cores: r2(baseline.harness), ceiling_points_per_s: Math.round(theirs) } : null,
    ceiling_ratio: theirs > 0 ? Math.round((mine / theirs) * 1000) / 1000 : null,
    waiting_for_core: service.waiting
      ? { service: r2(service.waiting.server), service_main_thread: r2(service.waiting.serverMain), harness: r2(service.waiting.harness) }
      : null,
  };
}

/** The floor server's run (load-tests/floor-server.ts): its cores, and CPU per point of it and of the harness. */
export interface FloorCpu {
  server_cores: number;
  server_main_thread: number;
  harness_cores: number;
  server_us_per_point: number;
  harness_us_per_point: number;
  ceiling_points_per_s: number;
}

export function floorCpu(pps: number, floor: CpuShare, cores = cpus().length): FloorCpu {
  const us = (c: number) => (pps > 0 ? Math.round((c / pps) * 1e7) / 10 : 0);
  return {
    server_cores: r2(floor.server),
    server_main_thread: r2(floor.serverMain),
    harness_cores: r2(floor.harness),
    server_us_per_point: us(floor.server),
    harness_us_per_point: us(floor.harness),
    ceiling_points_per_s: Math.round(ceiling(pps, floor, cores)),
  };
}
