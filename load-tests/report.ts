// The run's report: the figures the issue asks for (throughput, ratio to the Fastify baseline,
// events expected and received, missed / duplicated / unexpected / wrong payloads with each one
// listed, latency percentiles, HTTP errors, peak memory of the service), the goals the run can
// speak to, and the timelines the HTML report plots. Written as FILE.json and FILE.html beside it.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CpuReport, FloorCpu } from './cpu-budget.js';
import type { DeliveryFigures } from './delivery-figures.js';
import { goalGap, type GoalGap } from './goal-gap.js';
import { renderHtml } from './html-report.js';
import type { Matched, MatchResult, ResolvedEvent } from './match.js';
import type { Ambiguity, ExpectedEvent } from './oracle/simulate.js';
import { histogram, percentiles, type Percentiles } from './stats.js';
import type { World } from './world.js';

export interface Goal {
  goal: string;
  target: string;
  value: number | null;
  met: boolean | null;
  /** For an unmet throughput goal: the CPU per point that would reach it, against this run's. */
  gap?: GoalGap;
}

export interface TimelinePoint {
  t: number;
  requests: number;
  points: number;
  errors: number;
  events?: number;
}

export interface KindCount {
  expected: number;
  matched: number;
  not_judged: number;
  missed: number;
  duplicates: number;
  unexpected: number;
}

/**
 * Where every expected and every received event went. `expected` sums to events_expected and
 * `received` to events_received; matched is on both sides, the rest on one side only, which is how
 * the two totals differ in a run without a single error.
 */
export interface EventAccounting {
  expected: { matched: number; missed: number; not_judged: number; excluded_users: number };
  received: { matched: number; duplicates: number; unexpected: number; not_judged: number; excluded_users: number };
}
import type { StoreSize } from './store-size.js';

export interface LoadReport {
  version: 1;
  generated_at: string;
  scenario?: string;
  target: string;
  users: number;
  geofences: number;
  places: number;
  triggers: number;
  /** Seconds of the measured window (after the warm-up). */
  duration_s: number;
  /** Seconds of load before it: counted for correctness and in the timeline only. */
  warmup_s: number;
  mode: 'single' | 'batch';
  batch: number;
  rate_target_pps: number | null;
  /** The maximum throughput the target rate is half of (--half-of): only then is the latency goal judged. */
  half_load_of_pps: number | null;
  concurrency: number;
  seed: number;
  requests: number;
  /** Every accepted point; `measured_points` those acknowledged after the warm-up. */
  points: number;
  measured_points: number;
  requests_per_s: number;
  points_per_s: number;
  /** Over the whole load phase, warm-up included (equals points_per_s without a warm-up). */
  whole_run_points_per_s: number;
  baseline_requests_per_s: number | null;
  baseline_points_per_s: number | null;
  ratio_to_baseline: number | null;
  /**
   * The floor server (load-tests/floor-server.ts: token lookup, parse, one appended line, a shard
   * round trip, no engine), run with `--floor-duration`: its points/s, its ratio to the baseline
   * (the best any implementation of this design reaches here), the service's ratio to it, and its CPU.
   */
  floor_points_per_s: number | null;
  floor_ratio_to_baseline: number | null;
  ratio_to_floor: number | null;
  floor_cpu: FloorCpu | null;
  /** The floor without any callbacks (no outbox lines, no sends): the bound of a service that sends none. */
  floor_bare_points_per_s: number | null;
  floor_bare_ratio_to_baseline: number | null;
  floor_bare_cpu: FloorCpu | null;
  /** Callbacks the floor sent per point it took, beside the service's (`callbacks_per_point`): the floor's firing share. */
  floor_callbacks_per_point: number | null;
  /** Callbacks received per point the service took, the whole run. */
  callbacks_per_point: number | null;
  /** Firings the oracle computed from the accepted points. */
  events_expected: number;
  /** Distinct events that arrived (callbacks by event_id, messages by id): a retry is not counted again. */
  events_received: number;
  events_matched: number;
  events_accounting: EventAccounting;
  missed: number;
  duplicates: number;
  unexpected: number;
  wrong_payload: number;
  retries: number;
  refused_deliveries: number;
  ambiguous: { expected: number; received: number; marks: number; reasons: Record<string, number> };
  gated: Record<string, number>;
  stale_points_ignored: number;
  latency_ms: Percentiles;
  message_latency_ms: Percentiles;
  request_latency_ms: Percentiles;
  baseline_request_latency_ms: Percentiles | null;
  latency_histogram: Array<{ le: number | null; count: number }>;
  http_errors: number;
  http_errors_by_status: Record<string, number>;
  http_error_samples: Array<{ status: number | string; body: string }>;
  /** The first deliveries (up to 20) the receiver found a problem with, raw: path, problems, body. */
  callback_problem_samples: Array<{ path: string; problems: string[]; body: string }>;
  missed_slots: number;
  rss_mb_peak: number | null;
  baseline_rss_mb_peak: number | null;
  /** The embedded store at the end of the run (store-size.ts); absent against a URL or MongoDB. */
  store?: StoreSize | null;
  excluded_users: number;
  signature_checked: boolean;
  /** What the simulated phones did: modes, quiet and offline windows, jitter, stale points. */
  phones: Record<string, number>;
  /** CPU the harness itself used during the load phase, as a share of one core. */
  harness_cpu_share: number | null;
  /** Cores used by the service and the harness during the load phase, and the two-core ceiling (null for --url). */
  cpu: CpuReport | null;
  events_by_kind: Record<string, KindCount>;
  /** How delivery kept up and what it cost (issue 33); null against --url (no service CPU to read). */
  delivery?: DeliveryFigures | null;
  lists: {
    missed: unknown[];
    duplicates: unknown[];
    unexpected: unknown[];
    wrong_payload: unknown[];
    /** Expected and received events of pairs a correct engine could fire or not (see ambiguous.reasons). */
    not_judged_expected: unknown[];
    not_judged_received: unknown[];
    truncated_at: number;
  };
  timeline: TimelinePoint[];
  baseline_timeline: TimelinePoint[];
  rss_timeline: Array<{ t: number; mb: number }>;
  setup: { seconds: number; calls: number } | null;
  goals: Goal[];
  profile?: unknown;
  notes: string[];
}

export const LIST_LIMIT = 500;
const iso = (t: number | undefined) => (t === undefined ? null : new Date(t).toISOString());

export function describeExpected(w: World, e: ExpectedEvent) {
  const trigger = w.triggers[e.trigger];
  return {
    user_id: w.users[e.user].id ?? `#${e.user}`,
    trigger_id: trigger.id ?? `#${e.trigger}`,
    trigger: trigger.label,
    type: trigger.type,
    place_id: w.places[e.place].id ?? `#${e.place}`,
    triggered_on: e.on,
    time: iso(e.tMin),
    ...(e.tMax !== e.tMin ? { time_max: iso(e.tMax) } : {}),
    cause: e.cause === 'clock' ? 'dwell deadline (clock)' : 'point',
  };
}

export function describeReceived(w: World, r: ResolvedEvent) {
  return {
    source: r.source,
    id: r.id,
    user_id: r.userId ?? null,
    trigger_id: r.triggerId ?? null,
    trigger: r.trigger !== undefined ? w.triggers[r.trigger].label : null,
    place_id: r.placeId ?? null,
    triggered_on: r.triggeredOn ?? null,
    time: iso(r.t),
    deliveries: r.deliveries,
    ...(r.problems.length ? { problems: r.problems } : {}),
  };
}

export function eventsByKind(w: World, expected: ExpectedEvent[], m: MatchResult): Record<string, KindCount> {
  const out: Record<string, KindCount> = {};
  const k = (trigger: number | undefined) => {
    const label = trigger === undefined ? 'unknown trigger' : w.triggers[trigger].label;
    return (out[label] ??= { expected: 0, matched: 0, not_judged: 0, missed: 0, duplicates: 0, unexpected: 0 });
  };
  for (const e of expected) k(e.trigger).expected++;
  for (const x of m.matched) k(x.expected.trigger).matched++;
  for (const e of m.missed) k(e.trigger).missed++;
  for (const e of m.notJudged) k(e.trigger).not_judged++;
  for (const d of m.duplicates) k(d.duplicateOf.trigger).duplicates++;
  for (const r of m.unexpected) k(r.trigger).unexpected++;
  return out;
}

/**
 * Latencies of the matched events the server could know of from `from` (epoch ms) on: the measured
 * window after a warm-up. Callbacks and streamed messages apart.
 */
export function measuredLatencies(matched: readonly Matched[], from: number): { callbacks: number[]; messages: number[] } {
  const out = { callbacks: [] as number[], messages: [] as number[] };
  for (const x of matched) {
    if (x.latencyMs === undefined || x.expected.causeAt < from) continue;
    (x.received.source === 'callback' ? out.callbacks : out.messages).push(x.latencyMs);
  }
  return out;
}

export function ambiguityReasons(a: Ambiguity[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of a) out[x.reason] = (out[x.reason] ?? 0) + 1;
  return out;
}

/** The goals of issue 4 that this run's settings speak to. */
export function evaluateGoals(r: LoadReport): Goal[] {
  const goals: Goal[] = [];
  const bad = r.missed + r.duplicates + r.unexpected;
  goals.push({ goal: 'correctness: no missed, duplicated or unexpected event', target: '0', value: bad, met: bad === 0 && r.events_expected > 0 });
  if (r.mode === 'single' && r.rate_target_pps === null && r.ratio_to_baseline !== null) {
    const met = r.ratio_to_baseline >= 0.7;
    const gap = met || !r.baseline_points_per_s ? undefined : goalGap(0.7 * r.baseline_points_per_s, r.points_per_s, r.cpu, r.profile);
    goals.push({ goal: 'single-point throughput vs bare Fastify', target: '≥ 0.7', value: r.ratio_to_baseline, met, ...(gap ? { gap } : {}) });
  }
  // geofence-scaling's steps are batch runs too, but their figure is the ratio of the two.
  if (r.mode === 'batch' && r.rate_target_pps === null && !r.scenario?.startsWith('geofence-scaling/')) {
    const met = r.points_per_s >= 100_000;
    const gap = met ? undefined : goalGap(100_000, r.points_per_s, r.cpu, r.profile);
    goals.push({ goal: 'batched throughput (points per second)', target: '≥ 100000', value: Math.round(r.points_per_s), met, ...(gap ? { gap } : {}) });
  }
  // Only a run declared to be at half of a measured maximum speaks to the latency goal: a paced
  // run at any other rate (the ci scenario, one with refused deliveries and their retries) does not.
  if (r.rate_target_pps !== null && r.half_load_of_pps !== null) {
    goals.push({ goal: `callback latency p99 at half the maximum throughput (${r.half_load_of_pps} points/s)`, target: '≤ 100 ms', value: r.latency_ms.p99, met: r.latency_ms.p99 === null ? null : r.latency_ms.p99 <= 100 });
  }
  return goals;
}

export function summarizeLists(w: World, m: MatchResult): LoadReport['lists'] {
  return {
    missed: m.missed.slice(0, LIST_LIMIT).map((e) => describeExpected(w, e)),
    duplicates: m.duplicates.slice(0, LIST_LIMIT).map((d) => ({ ...describeReceived(w, d.received), duplicate_of: describeExpected(w, d.duplicateOf) })),
    unexpected: m.unexpected.slice(0, LIST_LIMIT).map((r) => describeReceived(w, r)),
    wrong_payload: m.wrongPayload.slice(0, LIST_LIMIT).map((r) => describeReceived(w, r)),
    not_judged_expected: m.notJudged.slice(0, LIST_LIMIT).map((e) => describeExpected(w, e)),
    not_judged_received: m.notJudgedReceived.slice(0, LIST_LIMIT).map((r) => describeReceived(w, r)),
    truncated_at: LIST_LIMIT,
  };
}

export function accountEvents(m: MatchResult): EventAccounting {
  return {
    expected: { matched: m.matched.length, missed: m.missed.length, not_judged: m.ambiguousExpected, excluded_users: m.excludedExpected },
    received: { matched: m.matched.length, duplicates: m.duplicates.length, unexpected: m.unexpected.length, not_judged: m.ambiguousReceived, excluded_users: m.excludedReceived },
  };
}

/**
 * The two totals in words: what each is made of, and why they differ when nothing went wrong.
 * Shown in the terminal and beside the counts of the HTML report.
 */
export function explainCounts(r: Pick<LoadReport, 'events_expected' | 'events_received' | 'events_accounting' | 'retries' | 'missed' | 'duplicates' | 'unexpected'>): string[] {
  const e = r.events_accounting.expected;
  const v = r.events_accounting.received;
  const n = (x: number) => x.toLocaleString('en-US');
  const lines = [
    `${n(r.events_expected)} expected = ${n(e.matched)} matched + ${n(e.missed)} missed + ${n(e.not_judged)} not judged` +
      (e.excluded_users ? ` + ${n(e.excluded_users)} of excluded users` : ''),
    `${n(r.events_received)} received = ${n(v.matched)} matched + ${n(v.duplicates)} duplicates + ${n(v.unexpected)} unexpected + ${n(v.not_judged)} not judged` +
      (v.excluded_users ? ` + ${n(v.excluded_users)} of excluded users` : '') +
      ` (one per event id${r.retries ? `; ${n(r.retries)} retries of an event id already received are not counted again` : ''})`,
  ];
  if (r.events_expected !== r.events_received && r.missed + r.duplicates + r.unexpected === 0) {
    lines.push(
      'The totals differ without any error: not-judged events belong to (user, trigger, place) pairs a correct engine could fire or not ' +
        '(ambiguous.reasons says why), so they are counted on the side they occurred and compared with nothing' +
        (e.excluded_users || v.excluded_users ? '; events of excluded users (requests that failed after retries) likewise' : '') + '.',
    );
  }
  return lines;
}

export { percentiles, histogram };

export async function writeReport(report: LoadReport, jsonFile: string): Promise<{ json: string; html: string }> {
  const json = path.resolve(jsonFile);
  const html = json.replace(/\.json$/i, '') + '.html';
  await mkdir(path.dirname(json), { recursive: true });
  await writeFile(json, JSON.stringify(report, null, 2) + '\n');
  await writeFile(html, renderHtml(report));
  return { json, html };
}
