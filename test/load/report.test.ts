// Report writing: the JSON beside an offline HTML page with its plots, the statistics behind them,
// what each count is made of (with links to its events), which goals a run speaks to, and the
// CPU-profile summary.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { areaOf, summarizeProfiles } from '../../load-tests/profile-summary.js';
import type { Matched } from '../../load-tests/match.js';
import { evaluateGoals, explainCounts, measuredLatencies, writeReport, type LoadReport } from '../../load-tests/report.js';
import { histogram, percentiles } from '../../load-tests/stats.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'load-report-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function report(over: Partial<LoadReport> = {}): LoadReport {
  const none = { count: 0, p50: null, p95: null, p99: null, max: null };
  return {
    version: 1, generated_at: '2024-01-01T00:00:00.000Z', target: 'local', users: 10, geofences: 20, places: 15, triggers: 12, duration_s: 3, warmup_s: 0,
    mode: 'single', batch: 1, rate_target_pps: null, half_load_of_pps: null, concurrency: 4, seed: 1, requests: 300, points: 300, measured_points: 300, requests_per_s: 100, points_per_s: 100, whole_run_points_per_s: 100,
    baseline_requests_per_s: 200, baseline_points_per_s: 200, ratio_to_baseline: 0.5, floor_points_per_s: null, floor_ratio_to_baseline: null, ratio_to_floor: null, floor_cpu: null, floor_bare_points_per_s: null, floor_bare_ratio_to_baseline: null, floor_bare_cpu: null, floor_callbacks_per_point: null, callbacks_per_point: null, events_expected: 3, events_received: 3, events_matched: 2,
    events_accounting: { expected: { matched: 2, missed: 1, not_judged: 0, excluded_users: 0 }, received: { matched: 2, duplicates: 0, unexpected: 1, not_judged: 0, excluded_users: 0 } },
    missed: 1, duplicates: 0, unexpected: 1, wrong_payload: 1, retries: 0, refused_deliveries: 0,
    ambiguous: { expected: 0, received: 0, marks: 0, reasons: {} }, gated: { 'rate limit': 2 }, stale_points_ignored: 1,
    latency_ms: percentiles([5, 7, 9]), message_latency_ms: none, request_latency_ms: percentiles([1, 2]), baseline_request_latency_ms: null,
    latency_histogram: histogram([5, 7, 9]), http_errors: 0, http_errors_by_status: {}, http_error_samples: [], callback_problem_samples: [], missed_slots: 0,
    rss_mb_peak: 120, baseline_rss_mb_peak: 60, excluded_users: 0, signature_checked: true, phones: { walking: 10 }, harness_cpu_share: 0.3,
    cpu: { cores: 2, service_cores: 1.1, service_main_thread: 0.97, harness_cores: 0.4, box_busy_share: 0.75, ceiling_points_per_s: 133, baseline: { server_cores: 0.8, harness_cores: 0.9, ceiling_points_per_s: 235 }, ceiling_ratio: 0.566, waiting_for_core: { service: 0.7, service_main_thread: 0.21, harness: 0.2 }, service_threads: { main: 0.97, 'gt-shard-0': 0.08, 'gt-sender': 0.03, other: 0.02 } },
    events_by_kind: { enter: { expected: 3, matched: 2, not_judged: 0, missed: 1, duplicates: 0, unexpected: 1 } },
    lists: {
      missed: [{ user_id: 'U1', trigger_id: 'T1', place_id: 'P1', triggered_on: 'enter', time: '2024-01-01T00:00:01.000Z' }],
      duplicates: [],
      unexpected: [{ id: 'evt_<script>alert(1)</script>', problems: ['triggered_on "<b>"'] }],
      wrong_payload: [{ id: 'evt_x', problems: ['no event_id'] }],
      not_judged_expected: [],
      not_judged_received: [],
      truncated_at: 500,
    },
    timeline: [{ t: 0, requests: 90, points: 90, errors: 0, events: 1 }, { t: 1, requests: 110, points: 110, errors: 0, events: 2 }],
    baseline_timeline: [{ t: 0, requests: 200, points: 200, errors: 0 }], rss_timeline: [{ t: 0, mb: 100 }, { t: 1, mb: 120 }],
    setup: { seconds: 1, calls: 50 }, goals: [], notes: ['a note'],
    ...over,
  };
}

describe('report', () => {
  it('shows the floor beside the baseline when the run measured it, and no floor rows when not', async () => {
    const withFloor = report({
      floor_bare_points_per_s: 160, floor_bare_ratio_to_baseline: 0.8, floor_points_per_s: 140, floor_ratio_to_baseline: 0.7, ratio_to_floor: 0.714,
      floor_callbacks_per_point: 0.07, callbacks_per_point: 0.05,
    });
    const page = await readFile((await writeReport(withFloor, path.join(dir, 'floor', 'run.json'))).html, 'utf8');
    expect(page).toContain('floor without callbacks: points/s (ratio to baseline)</th><td>160 (0.8)');
    expect(page).toContain('floor with callbacks: points/s (ratio to baseline)</th><td>140 (0.7)');
    expect(page).toContain('callbacks per point: floor / service</th><td>0.07 / 0.05');
    const plain = await readFile((await writeReport(report(), path.join(dir, 'nofloor', 'run.json'))).html, 'utf8');
    expect(plain).not.toContain('floor with callbacks');
  });

  it('writes the JSON and, beside it, a self-contained HTML page with the three plots', async () => {
    const r = report();
    r.goals = evaluateGoals(r);
    const { json, html } = await writeReport(r, path.join(dir, 'sub', 'run.json'));
    expect(html).toBe(path.join(dir, 'sub', 'run.html'));
    expect(JSON.parse(await readFile(json, 'utf8'))).toEqual(r);
    const page = await readFile(html, 'utf8');
    for (const title of ['Points per second over time', 'Callbacks arriving per second', 'callback’s arrival', 'Expected vs received, by kind of trigger']) expect(page).toContain(title);
    expect(page.match(/<svg /g)?.length).toBeGreaterThanOrEqual(5);
    expect(page).not.toMatch(/<script|src="http|href="http|@import/);
    // Ids and problems from the network are escaped.
    expect(page).toContain('evt_&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('Missed: 1');
    expect(page).toContain('133 vs baseline 235 (ratio 0.566)');
    expect(page).toContain('waiting for a core while runnable (cores; service, its main thread, harness)');
    expect(page).toContain('0.7; 0.21; 0.2');
    expect(page).toContain('main 0.97, gt-shard-0 0.08, gt-sender 0.03, other 0.02');
    expect(page).not.toContain('Deliveries with problems');
    // The unmet single-point goal (0.566) says what would close it.
    expect(r.goals[1]!.gap).toBeDefined();
    expect(page).toContain(`To close it: ${r.goals[1]!.gap!.summary.slice(0, 40)}`);
  });

  it('says how the expected and received totals add up, and why they differ in a run without errors', async () => {
    const r = report({
      events_expected: 695, events_received: 696, events_matched: 690, missed: 0, duplicates: 0, unexpected: 0, wrong_payload: 0, retries: 4,
      events_accounting: { expected: { matched: 690, missed: 0, not_judged: 5, excluded_users: 0 }, received: { matched: 690, duplicates: 0, unexpected: 0, not_judged: 6, excluded_users: 0 } },
      ambiguous: { expected: 5, received: 6, marks: 3, reasons: { 'out-point acknowledged after the deadline': 3 } },
      lists: {
        missed: [], duplicates: [], unexpected: [], wrong_payload: [], truncated_at: 500,
        not_judged_expected: [{ user_id: 'U7', trigger_id: 'T7', place_id: 'P7', triggered_on: 'enter', time: '2024-01-01T00:00:02.000Z' }],
        not_judged_received: [{ id: 'evt_nj', user_id: 'U7', trigger_id: 'T7', place_id: 'P7' }],
      },
    });
    const lines = explainCounts(r);
    expect(lines[0]).toBe('695 expected = 690 matched + 0 missed + 5 not judged');
    expect(lines[1]).toBe('696 received = 690 matched + 0 duplicates + 0 unexpected + 6 not judged (one per event id; 4 retries of an event id already received are not counted again)');
    expect(lines[2]).toMatch(/^The totals differ without any error: not-judged events/);
    const page = await readFile((await writeReport(r, path.join(dir, 'differ', 'run.json'))).html, 'utf8');
    expect(page).toContain('695 expected = 690 matched + 0 missed + 5 not judged');
    // The not-judged counts link to the events behind them, with the oracle's reasons.
    expect(page).toContain('<a href="#not-judged">5 / 6</a>');
    expect(page).toContain('id="not-judged"');
    expect(page).toContain('out-point acknowledged after the deadline');
    expect(page).toContain('evt_nj');
    // Equal totals and no errors need no excuse.
    expect(explainCounts(report({ missed: 0, unexpected: 0 }))).toHaveLength(2);
  });

  it('links each error count to the list of its events', async () => {
    const page = await readFile((await writeReport(report(), path.join(dir, 'links', 'run.json'))).html, 'utf8');
    expect(page).toContain('<a href="#missed">1</a>');
    expect(page).toContain('<h3 id="missed">Missed: 1</h3>');
    expect(page).toContain('<a href="#unexpected">1</a>');
    expect(page).toContain('<h3 id="duplicates">Duplicates: none</h3>');
  });

  it('keeps the legend above the plot and draws the baseline dashed, over the service', async () => {
    const page = await readFile((await writeReport(report(), path.join(dir, 'plot', 'run.json'))).html, 'utf8');
    const chart = page.slice(page.indexOf('Points per second over time'), page.indexOf('Callbacks arriving per second'));
    const legendYs = [...chart.matchAll(/<g class="legend"><line [^>]*y1="([\d.]+)"/g)].map((x) => Number(x[1]));
    expect(legendYs).toHaveLength(2);
    // The plot area starts below the legend: its highest grid line is lower on the page than every legend entry.
    const gridYs = [...chart.matchAll(/<line x1="64" x2="744" y1="([\d.]+)"/g)].map((x) => Number(x[1]));
    expect(Math.min(...gridYs)).toBeGreaterThan(Math.max(...legendYs) + 6);
    const series = [...chart.matchAll(/<polyline class="series"([^>]*)>/g)].map((x) => x[1]);
    expect(series).toHaveLength(2);
    expect(series[0]).not.toContain('stroke-dasharray');
    expect(series[1]).toContain('stroke-dasharray');
    expect(chart).toContain('baseline: bare Fastify, same generator');
  });

  it('shows the raw deliveries the receiver found problems with, escaped', async () => {
    const r = report({ callback_problem_samples: [{ path: '/cb/1', problems: ['signature not valid: mismatch'], body: '{"x":"<b>"}' }] });
    r.goals = evaluateGoals(r);
    const { html } = await writeReport(r, path.join(dir, 'problems.json'));
    const page = await readFile(html, 'utf8');
    expect(page).toContain('Deliveries with problems (first 1, raw)');
    expect(page).toContain('signature not valid: mismatch');
    expect(page).not.toContain('<b>');
  });

  it('computes nearest-rank percentiles and a latency histogram', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentiles(values)).toEqual({ count: 100, p50: 50, p95: 95, p99: 99, max: 100 });
    expect(percentiles([])).toEqual({ count: 0, p50: null, p95: null, p99: null, max: null });
    const h = histogram([0.5, 1, 1.5, 30, 20_000]);
    expect(h[0]).toEqual({ le: 1, count: 2 });
    expect(h.find((b) => b.le === 50)!.count).toBe(1);
    expect(h[h.length - 1]).toEqual({ le: null, count: 1 });
  });

  it('states the goals the run can speak to', () => {
    const single = evaluateGoals(report({ missed: 0, unexpected: 0, ratio_to_baseline: 0.8 }));
    expect(single.map((g) => [g.goal.split(':')[0], g.met])).toEqual([['correctness', true], ['single-point throughput vs bare Fastify', true]]);
    const batch = evaluateGoals(report({ mode: 'batch', batch: 50, points_per_s: 90_000 }));
    expect(batch[1]).toMatchObject({ target: '≥ 100000', met: false });
    // An unmet throughput goal says what would close it when the run measured its CPU.
    const cpu = { cores: 2, service_cores: 1, service_main_thread: 0.5, harness_cores: 0.45, box_busy_share: 0.725, ceiling_points_per_s: 124_138, baseline: null, ceiling_ratio: null, waiting_for_core: null, service_threads: null };
    const short = evaluateGoals(report({ mode: 'batch', batch: 50, points_per_s: 90_000, cpu }));
    expect(short[1]!.gap).toMatchObject({ target_points_per_s: 100_000, service_us_per_point: 11.1, harness_us_per_point: 5 });
    expect(evaluateGoals(report({ mode: 'batch', batch: 50, points_per_s: 110_000, cpu }))[1]!.gap).toBeUndefined();
    // A geofence-scaling step speaks to correctness only: its goal is the ratio of its two steps.
    expect(evaluateGoals(report({ mode: 'batch', batch: 50, points_per_s: 50_000, scenario: 'geofence-scaling/100k' })).map((g) => g.goal.split(':')[0])).toEqual(['correctness']);
    const half = evaluateGoals(report({ rate_target_pps: 1000, half_load_of_pps: 2000, latency_ms: percentiles([10, 20, 150]) }));
    expect(half[1]).toMatchObject({ value: 150, met: false });
    expect(half[1]!.goal).toContain('2000 points/s');
    // A paced run at some other rate (the ci scenario, refused deliveries retried) is not judged on latency.
    const paced = evaluateGoals(report({ rate_target_pps: 1000, latency_ms: percentiles([10, 20, 1921]) }));
    expect(paced.map((g) => g.goal.split(':')[0])).toEqual(['correctness']);
  });

  it('summarises CPU profiles by function and by area of the code', () => {
    const node = (id: number, functionName: string, url: string) => ({ id, callFrame: { functionName, url, lineNumber: 9 } });
    const profile = {
      nodes: [node(1, '(root)', ''), node(2, 'step', 'file:///w/machines/geofence-machine.ts'), node(3, 'parse', 'file:///w/node_modules/fastify/lib/x.js'), node(4, '(idle)', '')],
      startTime: 0, endTime: 10, samples: [2, 2, 3, 4, 2], timeDeltas: [1000, 1000, 2000, 5000, 1000],
    };
    const s = summarizeProfiles([{ file: '/tmp/CPU.1.cpuprofile', profile }]);
    expect(s.total_ms).toBe(5);
    expect(s.top_functions[0]).toMatchObject({ fn: 'step', ms: 3, share: 60 });
    expect(s.by_area.map((a) => a.area)).toEqual(['machines/geofence-machine', 'package fastify']);
    expect(areaOf('node:internal/x')).toBe('node internals');
    expect(areaOf('', '(garbage collector)')).toBe('garbage collector');
    expect(areaOf('', 'writev')).toBe('native writev');
  });

  it('counts only the samples inside a window of the service’s life, every thread on one clock', () => {
    const node = (id: number, functionName: string, url: string) => ({ id, callFrame: { functionName, url, lineNumber: 0 } });
    // Main thread from 0: setup (1 ms) then load (3 ms); a worker starting 1 ms later: load (2 ms).
    const main = {
      nodes: [node(1, 'setup', 'file:///w/src/services/x.ts'), node(2, 'load', 'file:///w/src/engine/host.ts')],
      startTime: 1_000_000, endTime: 1_004_000, samples: [1, 2, 2, 2], timeDeltas: [1000, 1000, 1000, 1000],
    };
    const worker = { nodes: [node(1, 'evaluate', 'file:///w/workers/shard-worker.ts')], startTime: 1_001_000, endTime: 1_003_000, samples: [1, 1], timeDeltas: [1000, 1000] };
    const all = summarizeProfiles([{ file: 'main', profile: main }, { file: 'worker', profile: worker }]);
    expect(all.total_ms).toBe(6);
    expect(all.window_s).toBeUndefined();
    // Samples stamped at 2, 3 and 4 ms (main) and 2 and 3 ms (worker) fall in [1.5, 4.5) ms.
    const load = summarizeProfiles([{ file: 'main', profile: main }, { file: 'worker', profile: worker }], 25, { fromMs: 1.5, toMs: 4.5 });
    expect(load.total_ms).toBe(5);
    expect(load.top_functions.map((f) => f.fn)).toEqual(['load', 'evaluate']);
    expect(load.threads).toEqual([{ file: 'main', busy_ms: 3 }, { file: 'worker', busy_ms: 2 }]);
  });
});

describe('measured latencies', () => {
  const m = (causeAt: number, source: 'callback' | 'message', latencyMs?: number) =>
    ({ expected: { causeAt }, received: { source }, ...(latencyMs !== undefined ? { latencyMs } : {}) }) as unknown as Matched;

  it('keeps the events the server could know of from the end of the warm-up on, callbacks and messages apart', () => {
    const matched = [m(900, 'callback', 50), m(1000, 'callback', 20), m(1500, 'message', 30), m(999, 'message', 70), m(2000, 'callback'), m(1200, 'callback', 10)];
    expect(measuredLatencies(matched, 1000)).toEqual({ callbacks: [20, 10], messages: [30] });
    // Without a warm-up every event with a latency counts.
    expect(measuredLatencies(matched, 0)).toEqual({ callbacks: [50, 20, 10], messages: [30, 70] });
  });
});
