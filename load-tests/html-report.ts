// The HTML report: one self-contained file (inline CSS and hand-built SVG, no script, nothing
// fetched) that opens offline: summary, goals, throughput over time against the baseline, latency
// histogram, events expected vs received per kind of trigger, service memory, and every listed
// event behind a count (each count links to its list). Every figure says what it counts.
import { threadList, type CpuReport } from './cpu-budget.js';
import { explainCounts, type LoadReport } from './report.js';

const esc = (s: unknown) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const fmt = (v: unknown): string => {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return Number.isInteger(v) ? v.toLocaleString('en-US') : v.toLocaleString('en-US', { maximumFractionDigits: 2 });
  return String(v);
};

interface Series {
  name: string;
  color: string;
  points: Array<[number, number]>;
  /** SVG stroke-dasharray, so series stay apart where they overlap (and in black and white). */
  dash?: string;
  opacity?: number;
}

const W = 760;
const H = 260;
/** The top margin holds the legend, so it never covers a line. */
const PAD = { l: 64, r: 16, t: 34, b: 36 };
const LEGEND_Y = 8;

/** Legend entries left to right, each as wide as its name: a line sample in the series' style, then the name. */
function legend(series: Array<Pick<Series, 'name' | 'color' | 'dash' | 'opacity'>>): string {
  let x = PAD.l;
  return series
    .map((s) => {
      const item = `<g class="legend"><line x1="${x}" x2="${x + 22}" y1="${LEGEND_Y + 6}" y2="${LEGEND_Y + 6}" stroke="${s.color}" stroke-width="2.5"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}${s.opacity !== undefined ? ` stroke-opacity="${s.opacity}"` : ''}/>` +
        `<text x="${x + 28}" y="${LEGEND_Y + 10}">${esc(s.name)}</text></g>`;
      x += 28 + Math.ceil(s.name.length * 6.2) + 24;
      return item;
    })
    .join('');
}

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/** Series are drawn in the order given, so the last one is on top. */
export function lineChart(title: string, series: Series[], xLabel: string, yLabel: string, caption = ''): string {
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) return `<figure><figcaption>${esc(title)}</figcaption><p class="muted">no data</p></figure>`;
  const xMax = niceMax(Math.max(...all.map((p) => p[0]), 1));
  const yMax = niceMax(Math.max(...all.map((p) => p[1]), 1));
  const x = (v: number) => PAD.l + (v / xMax) * (W - PAD.l - PAD.r);
  const y = (v: number) => H - PAD.b - (v / yMax) * (H - PAD.t - PAD.b);
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const grid = ticks
    .map((f) => `<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${y(f * yMax)}" y2="${y(f * yMax)}" class="grid"/><text x="${PAD.l - 6}" y="${y(f * yMax) + 4}" text-anchor="end">${esc(fmt(f * yMax))}</text>`)
    .join('');
  const xt = ticks.map((f) => `<text x="${x(f * xMax)}" y="${H - PAD.b + 16}" text-anchor="middle">${esc(fmt(f * xMax))}</text>`).join('');
  const shown = series.filter((s) => s.points.length > 0);
  const lines = shown
    .map((s) => `<polyline class="series" fill="none" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}${s.opacity !== undefined ? ` stroke-opacity="${s.opacity}"` : ''} points="${s.points.map(([a, b]) => `${x(a).toFixed(1)},${y(b).toFixed(1)}`).join(' ')}"><title>${esc(s.name)}</title></polyline>`)
    .join('');
  return `<figure><figcaption>${esc(title)}</figcaption>${caption ? `<p class="caption">${esc(caption)}</p>` : ''}<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">${legend(shown)}${grid}${xt}${lines}
<text x="${(W + PAD.l) / 2}" y="${H - 4}" text-anchor="middle">${esc(xLabel)}</text><text x="14" y="${(H + PAD.t) / 2}" transform="rotate(-90 14 ${(H + PAD.t) / 2})" text-anchor="middle">${esc(yLabel)}</text></svg></figure>`;
}

export function barChart(title: string, categories: string[], groups: Array<{ name: string; color: string; values: number[] }>): string {
  if (categories.length === 0) return `<figure><figcaption>${esc(title)}</figcaption><p class="muted">no data</p></figure>`;
  const height = Math.max(H, 40 + categories.length * (groups.length * 10 + 12));
  const labelW = 190;
  const max = niceMax(Math.max(1, ...groups.flatMap((g) => g.values)));
  const bw = (v: number) => (v / max) * (W - labelW - 60);
  let yPos = 12 + Math.ceil(groups.length / 3) * 14;
  let body = '';
  categories.forEach((c, i) => {
    body += `<text x="${labelW - 6}" y="${yPos + (groups.length * 10) / 2 + 4}" text-anchor="end">${esc(c)}</text>`;
    for (const g of groups) {
      const v = g.values[i] ?? 0;
      body += `<rect x="${labelW}" y="${yPos}" width="${bw(v).toFixed(1)}" height="9" fill="${g.color}"><title>${esc(`${g.name}: ${v}`)}</title></rect>`;
      if (v > 0) body += `<text x="${labelW + bw(v) + 4}" y="${yPos + 8}" class="small">${esc(fmt(v))}</text>`;
      yPos += 10;
    }
    yPos += 12;
  });
  // Legend in two columns, each name on its own line: long names do not overlap.
  const legend = groups.map((g, i) => `<rect x="${labelW + (i % 3) * 180}" y="${4 + Math.floor(i / 3) * 14}" width="10" height="10" fill="${g.color}"/><text x="${labelW + 14 + (i % 3) * 180}" y="${13 + Math.floor(i / 3) * 14}">${esc(g.name)}</text>`).join('');
  return `<figure><figcaption>${esc(title)}</figcaption><svg viewBox="0 0 ${W} ${height}" role="img" aria-label="${esc(title)}">${legend}${body}</svg></figure>`;
}

export function histogramChart(title: string, buckets: Array<{ le: number | null; count: number }>): string {
  const total = buckets.reduce((a, b) => a + b.count, 0);
  if (total === 0) return `<figure><figcaption>${esc(title)}</figcaption><p class="muted">no data</p></figure>`;
  const max = niceMax(Math.max(...buckets.map((b) => b.count)));
  const n = buckets.length;
  const bw = (W - PAD.l - PAD.r) / n;
  const y = (v: number) => H - PAD.b - (v / max) * (H - PAD.t - PAD.b);
  let prev = 0;
  const short = (ms: number) => (ms >= 1000 ? `${ms / 1000}s` : `${ms}`);
  const bars = buckets
    .map((b, i) => {
      const label = b.le === null ? `>${short(prev)}` : `≤${short(b.le)}`;
      if (b.le !== null) prev = b.le;
      const x0 = PAD.l + i * bw + 2;
      return `<rect x="${x0.toFixed(1)}" y="${y(b.count).toFixed(1)}" width="${(bw - 4).toFixed(1)}" height="${(H - PAD.b - y(b.count)).toFixed(1)}" fill="#3b7dd8"><title>${esc(`${label} ms: ${b.count}`)}</title></rect>` +
        `<text x="${(x0 + bw / 2 - 2).toFixed(1)}" y="${H - PAD.b + 16}" text-anchor="middle" class="small">${esc(label)}</text>` +
        (b.count > 0 ? `<text x="${(x0 + bw / 2 - 2).toFixed(1)}" y="${(y(b.count) - 3).toFixed(1)}" text-anchor="middle" class="small">${esc(fmt(b.count))}</text>` : '');
    })
    .join('');
  return `<figure><figcaption>${esc(title)}</figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">${bars}<text x="${(W + PAD.l) / 2}" y="${H - 4}" text-anchor="middle">milliseconds</text></svg></figure>`;
}

/** A cell given as `{ html }` is markup built here (links to the lists); anything else is escaped. */
type Cell = unknown | { html: string };
const cellHtml = (v: Cell) => (typeof v === 'object' && v !== null && 'html' in v ? String((v as { html: string }).html) : esc(fmt(v)));

function table(rows: Array<[string, Cell]>): string {
  return `<table>${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${cellHtml(v)}</td></tr>`).join('')}</table>`;
}

/** A count that links to the list of its events, when there is one to see. */
const countLink = (n: number, anchor: string): Cell => (n > 0 ? { html: `<a href="#${anchor}">${esc(fmt(n))}</a>` } : n);

function listTable(title: string, anchor: string, items: unknown[], total: number, what: string): string {
  if (total === 0) return `<h3 id="${anchor}">${esc(title)}: none</h3>`;
  const rows = items as Array<Record<string, unknown>>;
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) => esc(typeof v === 'object' && v !== null ? JSON.stringify(v) : fmt(v));
  return `<h3 id="${anchor}">${esc(title)}: ${esc(fmt(total))}${total > rows.length ? ` (first ${rows.length} listed; the JSON report has the same)` : ''}</h3>
<p class="caption">${esc(what)}</p>
<div class="scroll"><table class="list"><tr>${cols.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>${rows
    .map((r) => `<tr>${cols.map((c) => `<td>${cell(r[c])}</td>`).join('')}</tr>`)
    .join('')}</table></div>`;
}

/** The cores each side used, and what the box could do at all with this much CPU per point. */
/** The floor's rows (load-tests/floor-server.ts): the least this design does per point, without and with callbacks. */
function floorRows(r: LoadReport): Array<[string, unknown]> {
  return [
    ['floor without callbacks: points/s (ratio to baseline)', `${r.floor_bare_points_per_s ?? '—'} (${r.floor_bare_ratio_to_baseline ?? '—'})`],
    ['floor with callbacks: points/s (ratio to baseline)', `${r.floor_points_per_s} (${r.floor_ratio_to_baseline ?? '—'})`],
    ['service / floor with callbacks', r.ratio_to_floor],
    ['callbacks per point: floor / service', `${r.floor_callbacks_per_point ?? '—'} / ${r.callbacks_per_point ?? '—'}`],
  ];
}

function cpuRows(c: CpuReport): Array<[string, unknown]> {
  return [
    ['service CPU (cores; main thread)', `${c.service_cores}; ${c.service_main_thread}`],
    ...(c.service_threads ? [['service CPU by thread (cores)', threadList(c.service_threads)] as [string, unknown]] : []),
    [`box busy (${c.cores} cores, service + harness)`, `${Math.round(c.box_busy_share * 100)} %`],
    [`${c.cores}-core ceiling (points/s at this CPU per point)`, c.baseline ? `${c.ceiling_points_per_s} vs baseline ${c.baseline.ceiling_points_per_s} (ratio ${c.ceiling_ratio})` : c.ceiling_points_per_s],
    ...(c.waiting_for_core
      ? [['waiting for a core while runnable (cores; service, its main thread, harness)', `${c.waiting_for_core.service}; ${c.waiting_for_core.service_main_thread}; ${c.waiting_for_core.harness}`] as [string, unknown]]
      : []),
  ];
}

export function renderHtml(r: LoadReport): string {
  const kinds = Object.keys(r.events_by_kind).sort();
  const verdict = r.missed + r.duplicates + r.unexpected === 0 && r.events_expected > 0;
  const acc = r.events_accounting;
  const notJudged = acc.expected.not_judged + acc.received.not_judged;
  const summary: Array<[string, unknown]> = [
    ['users', r.users], ['geofences', r.geofences], ['places', r.places], ['triggers', r.triggers],
    ['mode', r.mode === 'batch' ? `batch of ${r.batch}` : 'single point'], ['target rate (points/s)', r.rate_target_pps ?? 'unthrottled'],
    ['concurrency', r.concurrency], ['warm-up (s, not measured)', r.warmup_s], ['measured duration (s)', r.duration_s], ['requests (HTTP attempts, retries included)', r.requests],
    ['points accepted (of which acknowledged after the warm-up)', `${fmt(r.points)} (${fmt(r.measured_points)})`], ['requests/s (measured)', r.requests_per_s], ['points/s (measured)', r.points_per_s],
    ['points/s over the whole run, warm-up included', r.whole_run_points_per_s], ['baseline requests/s (bare Fastify, same generator)', r.baseline_requests_per_s],
    ['ratio to baseline (service points/s ÷ baseline points/s)', r.ratio_to_baseline],
    ...(r.floor_points_per_s !== null ? floorRows(r) : []),
    ['events expected (fired by the oracle from the accepted points)', r.events_expected],
    ['events received (one per event id: retries not counted again)', r.events_received],
    ['how the two totals add up', { html: explainCounts(r).map(esc).join('<br>') }],
    ['missed (expected, never arrived)', countLink(r.missed, 'missed')],
    ['duplicates (a second event id for one firing)', countLink(r.duplicates, 'duplicates')],
    ['unexpected (arrived, nothing expected)', countLink(r.unexpected, 'unexpected')],
    ['wrong payloads (also counted above as matched or not)', countLink(r.wrong_payload, 'wrong-payloads')],
    ['retries (the same event id delivered again)', r.retries], ['first deliveries refused (--callback-failures)', r.refused_deliveries],
    ['not judged (ambiguous) expected / received', notJudged > 0 ? { html: `<a href="#not-judged">${esc(fmt(acc.expected.not_judged))} / ${esc(fmt(acc.received.not_judged))}</a>` } : '0 / 0'],
    ['callback latency p50 / p95 / p99 / max (ms, cause to arrival, measured)', `${fmt(r.latency_ms.p50)} / ${fmt(r.latency_ms.p95)} / ${fmt(r.latency_ms.p99)} / ${fmt(r.latency_ms.max)}`],
    ['message latency p50 / p99 (ms, stream sample)', `${fmt(r.message_latency_ms.p50)} / ${fmt(r.message_latency_ms.p99)}`],
    ['request latency p50 / p99 (ms)', `${fmt(r.request_latency_ms.p50)} / ${fmt(r.request_latency_ms.p99)}`],
    ['HTTP errors (location/update answers other than 200, and failed connections)', r.http_errors ? { html: `<a href="#http-errors">${esc(fmt(r.http_errors))}</a>` } : 0],
    ['service RSS peak (MB)', r.rss_mb_peak], ['baseline RSS peak (MB)', r.baseline_rss_mb_peak],
    ['signatures checked', r.signature_checked ? 'yes' : 'no'], ['harness CPU (share of a core)', r.harness_cpu_share],
    ...(r.cpu ? cpuRows(r.cpu) : []),
    ['phones', Object.entries(r.phones).map(([k, v]) => `${k} ${v}`).join(', ')], ['seed', r.seed], ['target', r.target],
  ];
  const goals = r.goals.length
    ? `<table><tr><th>goal</th><th>target</th><th>value</th><th>met</th></tr>${r.goals
        .map((g) => `<tr><td>${esc(g.goal)}</td><td>${esc(g.target)}</td><td>${esc(fmt(g.value))}</td><td class="${g.met ? 'ok' : 'bad'}">${g.met === null ? '—' : g.met ? 'yes' : 'no'}</td></tr>` +
          (g.gap ? `<tr><td colspan="4">To close it: ${esc(g.gap.summary)}</td></tr>` : ''))
        .join('')}</table>`
    : '';
  const profile = r.profile ? `<h2>Where the service's time goes (CPU profile)</h2><pre>${esc(JSON.stringify(r.profile, null, 2))}</pre>` : '';
  const reasons = Object.entries(r.ambiguous.reasons);
  const measuredFrom = r.warmup_s > 0 ? ` (the first ${r.warmup_s} are warm-up, not measured)` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Load test report ${esc(r.generated_at)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:980px;color:#222;padding:0 12px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f5f5f5;font-weight:600}.list td{font-size:12px;font-family:ui-monospace,monospace}
.scroll{max-height:420px;overflow:auto}.ok{color:#197a32;font-weight:600}.bad{color:#b3261e;font-weight:600}.muted{color:#888}
.caption{color:#555;margin:2px 0 6px}dt{font-weight:600}dd{margin:0 0 6px 16px}
figure{margin:16px 0}figcaption{font-weight:600;margin-bottom:4px}svg{width:100%;height:auto;font-size:11px}svg .grid{stroke:#eee}
svg .small{font-size:9px}pre{background:#f7f7f7;padding:8px;overflow:auto;font-size:12px}
</style></head><body>
<h1>Load test report</h1>
<p>${esc(r.generated_at)}${r.scenario ? ` · scenario <b>${esc(r.scenario)}</b>` : ''} · verdict:
<span class="${verdict ? 'ok' : 'bad'}">${verdict ? 'every expected event arrived once, nothing unexpected' : 'events missing, duplicated or unexpected (see below)'}</span></p>
${goals}
<h2>Summary</h2>${table(summary)}
${r.notes.length ? `<h2>Notes</h2><ul>${r.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
<h2>Throughput</h2>
${lineChart('Points per second over time: the service against the bare Fastify baseline', [
    { name: 'service: points acknowledged per second', color: '#1f5fbf', points: r.timeline.map((b) => [b.t, b.points]) },
    { name: 'baseline: bare Fastify, same generator', color: '#d1495b', dash: '7 4', opacity: 0.85, points: r.baseline_timeline.map((b) => [b.t, b.points]) },
  ], `seconds since the start of each load phase${measuredFrom}`, 'points per second',
    'The baseline runs in its own phase before the service, driven the same way; both are drawn from the start of their phase. The dashed baseline is drawn on top.')}
${lineChart('Callbacks arriving per second', [
    { name: 'callback deliveries (retries included)', color: '#e07b00', points: r.timeline.filter((b) => b.events !== undefined).map((b) => [b.t, b.events!]) },
  ], `seconds since the start of the load phase${measuredFrom}`, 'deliveries per second')}
<h2>Latency</h2>
${histogramChart('From the location/update that caused an event to the callback’s arrival', r.latency_histogram)}
<p class="caption">From the moment the service could know of the event: the sending of the location/update that caused it, or, for a dwell fired by the clock, its deadline plus the service's tolerance (<code>--dwell-tolerance-ms</code>), or the end of the grace after the service's start (<code>--dwell-grace-ms</code>) if later. Matched callbacks whose cause came after the warm-up: ${esc(fmt(r.latency_ms.count))}.</p>
<h2 id="events">Events</h2>
<p>${explainCounts(r).map(esc).join('<br>')}</p>
<dl>
<dt>expected</dt><dd>every firing the oracle derives from the points the service accepted, by the rules of machines/README.md</dd>
<dt>received</dt><dd>callbacks and messages that arrived, one per event id (a retry of an id already received is counted under retries, not again here)</dd>
<dt>matched</dt><dd>a received event on the same user, trigger, place and <code>triggered_on</code> as an expected one, within the firing-time tolerance</dd>
<dt>missed / duplicates / unexpected</dt><dd>expected with nothing matching it / a second event id for a firing already matched / received with no firing to match; each is an error and is listed below</dd>
<dt>not judged</dt><dd>events of (user, trigger, place) pairs that a correct engine could fire or not from some moment on (reasons below); they are counted where they occur and compared with nothing, so they make the two totals differ without any error</dd>
</dl>
${barChart('Expected vs received, by kind of trigger', kinds, [
    { name: 'expected', color: '#999', values: kinds.map((k) => r.events_by_kind[k].expected) },
    { name: 'received (matched)', color: '#1f5fbf', values: kinds.map((k) => r.events_by_kind[k].matched) },
    { name: 'not judged', color: '#c9c9c9', values: kinds.map((k) => r.events_by_kind[k].not_judged) },
    { name: 'missed', color: '#b3261e', values: kinds.map((k) => r.events_by_kind[k].missed) },
    { name: 'duplicate / unexpected', color: '#e07b00', values: kinds.map((k) => r.events_by_kind[k].duplicates + r.events_by_kind[k].unexpected) },
  ])}
${Object.keys(r.gated).length ? `<h3>Gated</h3><p class="caption">Firings the rules suppressed (windows, rate limits): neither expected nor an error.</p>${table(Object.entries(r.gated).map(([k, v]) => [`gated by ${k}`, v] as [string, unknown]))}` : ''}
${listTable('Missed', 'missed', r.lists.missed, r.missed, 'Expected firings that never arrived: user, trigger, place, when (time to time_max) and what caused it.')}
${listTable('Duplicates', 'duplicates', r.lists.duplicates, r.duplicates, 'Events that arrived under a second event id for a firing already matched (duplicate_of).')}
${listTable('Unexpected', 'unexpected', r.lists.unexpected, r.unexpected, 'Events that arrived with no expected firing to match.')}
${listTable('Wrong payloads', 'wrong-payloads', r.lists.wrong_payload, r.wrong_payload, 'Events whose payload disagrees with the world (problems); each is also counted as matched, duplicate or unexpected.')}
<h3 id="not-judged">Not judged: ${esc(fmt(acc.expected.not_judged))} expected, ${esc(fmt(acc.received.not_judged))} received</h3>
${reasons.length ? `<p class="caption">Pairs marked by the oracle, by reason:</p>${table(reasons)}` : ''}
${listTable('Not judged, expected', 'not-judged-expected', r.lists.not_judged_expected, acc.expected.not_judged, 'Firings the oracle computed for marked pairs, from their mark on.')}
${listTable('Not judged, received', 'not-judged-received', r.lists.not_judged_received, acc.received.not_judged, 'Events that arrived for marked pairs, from their mark on.')}
${r.callback_problem_samples.length ? `<h2>Deliveries with problems (first ${r.callback_problem_samples.length}, raw)</h2><pre>${esc(JSON.stringify(r.callback_problem_samples, null, 2))}</pre>` : ''}
<h2>Service memory</h2>
${lineChart('Resident set size of the service process', [{ name: 'service RSS (MB), sampled every 250 ms', color: '#6a4fb3', points: r.rss_timeline.map((s) => [s.t, s.mb]) }], 'seconds since the start of the load phase', 'MB')}
${r.http_errors ? `<h2 id="http-errors">HTTP errors</h2>${table(Object.entries(r.http_errors_by_status))}<pre>${esc(JSON.stringify(r.http_error_samples, null, 2))}</pre>` : ''}
${profile}
</body></html>
`;
}
