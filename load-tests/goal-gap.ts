// What would close an unmet throughput goal, from the run's own figures: the CPU per point the
// service, its main thread and the harness spent, and the service's CPU per point at which the
// goal's rate would fit on this box — as busy as in this run (the closed loop's gaps kept) and
// with every core busy (the two-core ceiling: the most any spreading of the work over threads or
// processes can give). The cut needed says how much less CPU per point the service must spend;
// where even the harness's share alone does not fit, no service change reaches the goal here.
import type { CpuReport } from './cpu-budget.js';

export interface GoalGap {
  /** Points per second the goal asks for. */
  target_points_per_s: number;
  /** CPU per point in this run, µs: the service (all threads), its main thread, the harness. */
  service_us_per_point: number;
  service_main_us_per_point: number;
  harness_us_per_point: number;
  /** The service's CPU per point at which the target fits, µs (null: the harness alone does not fit). */
  budget_us_at_this_busy_share: number | null;
  budget_us_with_every_core_busy: number | null;
  /** 1 − budget / today's CPU per point: the share of the service's CPU per point to remove. */
  cut_at_this_busy_share: number | null;
  cut_with_every_core_busy: number | null;
  /** The largest areas of the service's CPU profile, % of its busy time (with --cpu-prof; the measured seconds, all threads). */
  top_areas?: Array<{ area: string; percent: number }>;
  summary: string;
}

const r1 = (x: number) => Math.round(x * 10) / 10;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Undefined when the run has no CPU figures (a --url run) or no throughput to speak of. */
export function goalGap(targetPps: number, pps: number, cpu: CpuReport | null, profile?: unknown): GoalGap | undefined {
  if (!cpu || pps <= 0 || targetPps <= 0) return undefined;
  const us = (cores: number) => (cores * 1e6) / pps;
  const service = us(cpu.service_cores);
  const harness = us(cpu.harness_cores);
  // The box's CPU per point at the target rate, at a given busy share of all cores, less the
  // harness's (assumed to cost what it cost per point here).
  const budget = (busy: number) => {
    const b = (busy * cpu.cores * 1e6) / targetPps - harness;
    return b > 0 ? b : null;
  };
  const now = budget(cpu.box_busy_share);
  const full = budget(1);
  const cut = (b: number | null) => (b === null ? null : r3(Math.max(0, 1 - b / service)));
  const top = topAreas(profile);
  const pct = (x: number | null) => (x === null ? 'no service change (the harness alone does not fit)' : `${Math.round(x * 100)} % less`);
  const summary =
    `${Math.round(targetPps)} points/s needs the service at ${now === null ? '—' : r1(now)} µs of CPU per point with the box as busy as here ` +
    `(${Math.round(cpu.box_busy_share * 100)} %), ${full === null ? '—' : r1(full)} µs with every core busy; it spent ${r1(service)} ` +
    `(main thread ${r1(us(cpu.service_main_thread))}), the harness ${r1(harness)}: ${pct(cut(now))} here, ${pct(cut(full))} at best by spreading the work` +
    (top ? `; largest areas of the profile: ${top.map((a) => `${a.area} ${a.percent} %`).join(', ')}` : '');
  return {
    target_points_per_s: Math.round(targetPps),
    service_us_per_point: r1(service),
    service_main_us_per_point: r1(us(cpu.service_main_thread)),
    harness_us_per_point: r1(harness),
    budget_us_at_this_busy_share: now === null ? null : r1(now),
    budget_us_with_every_core_busy: full === null ? null : r1(full),
    cut_at_this_busy_share: cut(now),
    cut_with_every_core_busy: cut(full),
    ...(top ? { top_areas: top } : {}),
    summary,
  };
}

/** profile-summary's `by_area` (shares in %). */
function topAreas(profile: unknown): Array<{ area: string; percent: number }> | undefined {
  const areas = (profile as { by_area?: Array<{ area: string; share: number }> } | undefined)?.by_area;
  if (!Array.isArray(areas) || areas.length === 0) return undefined;
  return areas.slice(0, 5).map((a) => ({ area: a.area, percent: a.share }));
}
