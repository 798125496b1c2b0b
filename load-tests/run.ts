// `npm run load -- [options]`: parses the options (or expands a --scenario preset), runs the load
// test(s), prints the headline figures and where the reports are. Exit code 0 when every run was
// correct (no missed, duplicated or unexpected event), 1 otherwise, 2 on bad usage or a failure.
import path from 'node:path';
import { HELP, parseOptions, UsageError } from './options.js';
import { threadList } from './cpu-budget.js';
import { deliveryLines } from './delivery-figures.js';
import { runLoad } from './orchestrator.js';
import { explainCounts, type LoadReport } from './report.js';
import { planRuns, roundsSummary, SCENARIOS } from './scenarios.js';
import { MissingRouteError } from './api.js';

function headline(r: LoadReport, files?: { json: string; html: string }): string {
  const lines = [
    `${r.scenario ? `[${r.scenario}] ` : ''}${r.users} users, ${r.geofences} geofences, ${r.mode}${r.mode === 'batch' ? ` ×${r.batch}` : ''}, ${r.duration_s} s`,
    `  throughput: ${r.requests_per_s} req/s, ${r.points_per_s} points/s${r.warmup_s > 0 ? ` after ${r.warmup_s} s of warm-up (${r.whole_run_points_per_s} over the whole run)` : ''}; baseline ${r.baseline_points_per_s ?? '—'} points/s; ratio ${r.ratio_to_baseline ?? '—'}`,
    ...(r.floor_bare_points_per_s !== null ? [`  floor without callbacks: ${r.floor_bare_points_per_s} points/s, ratio to the baseline ${r.floor_bare_ratio_to_baseline ?? '—'}${r.floor_bare_cpu ? `; ${r.floor_bare_cpu.server_us_per_point} µs of CPU per point (harness ${r.floor_bare_cpu.harness_us_per_point})` : ''}`] : []),
    ...(r.floor_points_per_s !== null ? [`  floor (the least this design does per point, callbacks sent): ${r.floor_points_per_s} points/s, ratio to the baseline ${r.floor_ratio_to_baseline ?? '—'}; the service at ${r.ratio_to_floor} of it${r.floor_cpu ? `; floor ${r.floor_cpu.server_us_per_point} µs of CPU per point (harness ${r.floor_cpu.harness_us_per_point})` : ''}; callbacks per point: floor ${r.floor_callbacks_per_point ?? '—'}, service ${r.callbacks_per_point ?? '—'}`] : []),
    `  events: missed ${r.missed}, duplicates ${r.duplicates}, unexpected ${r.unexpected}, wrong payloads ${r.wrong_payload}`,
    ...explainCounts(r).map((l) => `    ${l}`),
    `  callback latency ms: p50 ${r.latency_ms.p50 ?? '—'} p95 ${r.latency_ms.p95 ?? '—'} p99 ${r.latency_ms.p99 ?? '—'} max ${r.latency_ms.max ?? '—'}; http errors ${r.http_errors}; service RSS peak ${r.rss_mb_peak ?? '—'} MB`,
    ...(r.store ? [`  store: ${(r.store.data_dir_bytes / 1e6).toFixed(1)} MB on disk; timeline ${r.store.timeline_rows} rows, ${(r.store.timeline_bytes / 1e6).toFixed(1)} MB (${r.points ? (r.store.timeline_bytes / r.points).toFixed(1) : '—'} bytes and ${r.points ? (r.store.timeline_rows / r.points).toFixed(3) : '—'} rows per accepted point)`] : []),
    ...deliveryLines(r.delivery ?? null),
    ...(r.cpu ? [`  cpu (cores): service ${r.cpu.service_cores} (main thread ${r.cpu.service_main_thread}), harness ${r.cpu.harness_cores}, box ${Math.round(r.cpu.box_busy_share * 100)} % busy; ${r.cpu.cores}-core ceiling ${r.cpu.ceiling_points_per_s} points/s${r.cpu.baseline ? ` vs the baseline's ${r.cpu.baseline.ceiling_points_per_s} (ratio ${r.cpu.ceiling_ratio})` : ''}`] : []),
    ...(r.cpu?.service_threads ? [`  service threads (cores): ${threadList(r.cpu.service_threads)}`] : []),
    ...(r.cpu?.waiting_for_core ? [`  waiting for a core while runnable (cores): service ${r.cpu.waiting_for_core.service} (main thread ${r.cpu.waiting_for_core.service_main_thread}), harness ${r.cpu.waiting_for_core.harness}`] : []),
    ...r.goals.flatMap((g) => [
      `  goal ${g.met === null ? '?' : g.met ? 'met' : 'NOT met'}: ${g.goal} (${g.target}): ${g.value ?? '—'}`,
      ...(g.gap ? [`    to close it: ${g.gap.summary}`] : []),
    ]),
  ];
  if (files) lines.push(`  report: ${path.relative(process.cwd(), files.json)} and ${path.relative(process.cwd(), files.html)}`);
  return lines.join('\n');
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  let options;
  try {
    options = parseOptions(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n\n${HELP}`);
      return 2;
    }
    throw err;
  }
  if (options.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (options.scenario && !SCENARIOS[options.scenario]) {
    process.stderr.write(`unknown scenario "${options.scenario}"; known: ${Object.keys(SCENARIOS).join(', ')}\n`);
    return 2;
  }

  const rounds: LoadReport[][] = [];
  let correct = true;
  for (const run of planRuns(argv, options)) {
    if (rounds.length < run.round) rounds.push([]);
    const round = rounds[run.round - 1]!;
    const { report, files } = await runLoad(run.make(round));
    round.push(report);
    process.stdout.write(`${headline(report, files)}\n`);
    if (report.missed + report.duplicates + report.unexpected > 0 || report.events_expected === 0) correct = false;
    const summary = options.scenario && round.length === SCENARIOS[options.scenario]!.steps.length ? SCENARIOS[options.scenario]!.summarize?.(round) : undefined;
    if (summary) process.stdout.write(`${summary}\n`);
  }
  const overRounds = roundsSummary(options.scenario, rounds);
  if (overRounds) process.stdout.write(`${overRounds}\n`);
  return correct ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof MissingRouteError) process.stderr.write(`\n${err.message}\nThe service is not ready for this harness yet.\n`);
    else process.stderr.write(`\n${(err as Error).stack ?? err}\n`);
    process.exit(2);
  },
);
