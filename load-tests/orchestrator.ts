// One load-test run from start to report: world and tracks from the seed; the bare-Fastify baseline;
// the service (started here, or the one at --url); the world created through the API; the load
// phase with the callback receiver and a live-stream sample listening; a settle wait for deadlines
// and late deliveries; the oracle over the exact points that were accepted; the comparison; the
// report. Every wait is bounded and every child process is stopped by its pid.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ServiceApi, type AppCredentials } from './api.js';
import { cpuReport, cpuWatch, floorCpu, type CpuShare } from './cpu-budget.js';
import { DeliveryWatch } from './delivery-figures.js';
import { floorFixture } from './floor-fixture.js';
import { HttpClient } from './http-client.js';
import { LoadGenerator, type LoadStats } from './load-generator.js';
import { matchEvents, resolve } from './match.js';
import { collectMessages, StreamSampler } from './messages.js';
import type { RunOptions } from './options.js';
import { replay } from './oracle/replay.js';
import { ChildServer, freePort } from './processes.js';
import { summarizeProfileDir } from './profile-summary.js';
import { Progress } from './progress.js';
import { mergeDeliveries, type ReceivedEvent } from './received.js';
import { DATABASE_FILE } from '../src/store/sqlite/engine.js';
import { CallbackReceiver } from './receiver.js';
import {
  accountEvents, ambiguityReasons, evaluateGoals, eventsByKind, histogram, measuredLatencies, percentiles, summarizeLists, writeReport,
  type LoadReport, type TimelinePoint,
} from './report.js';
import { storeSize } from './store-size.js';
import { setupWorld, type SetupResult } from './setup.js';
import { buildPlan } from './tracks.js';
import { shapesAllowed } from './shapes.js';
import { generateWorld, type World } from './world.js';

export interface RunResult {
  report: LoadReport;
  files?: { json: string; html: string };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Longest warm-up of the baseline: bare Fastify only needs the JIT's first seconds. */
const BASELINE_WARMUP_MAX_S = 5;

class Deadline {
  constructor(readonly at: number) {}
  get passed(): boolean {
    return Date.now() >= this.at;
  }
}

function timeline(stats: LoadStats, events?: number[]): TimelinePoint[] {
  return stats.timeline.map((b, t) => ({ t, requests: b.requests, points: b.points, errors: b.errors, ...(events ? { events: events[t] ?? 0 } : {}) }));
}

/** Rates over the measured window (after the warm-up); `wholePps` over the whole load phase. */
function rates(stats: LoadStats) {
  const seconds = Math.max(0.001, (stats.endedAt - stats.measuredFrom) / 1000);
  const whole = Math.max(0.001, (stats.endedAt - stats.startedAt) / 1000);
  return { seconds, rps: stats.measuredRequests / seconds, pps: stats.measuredPoints / seconds, wholePps: stats.points / whole };
}

/**
 * CPU of the server and this process over the measured window: the watch starts when the warm-up
 * ends (at once without one).
 */
function watchAfter(pid: number | undefined, warmupMs: number) {
  let watch: ReturnType<typeof cpuWatch> | undefined;
  let harness0: NodeJS.CpuUsage | undefined;
  const begin = () => {
    if (pid !== undefined) watch = cpuWatch(pid);
    harness0 = process.cpuUsage();
  };
  const timer = warmupMs > 0 ? setTimeout(begin, warmupMs) : undefined;
  if (!timer) begin();
  return {
    stop(): { server?: CpuShare; harness?: NodeJS.CpuUsage } {
      clearTimeout(timer);
      return { server: watch?.stop(), harness: harness0 && process.cpuUsage(harness0) };
    },
  };
}

/** Drives a load phase with a progress bar. */
async function drive(gen: LoadGenerator, durationS: number, progress: Progress, phase: string, events: () => number, limit: Deadline): Promise<LoadStats> {
  progress.start(phase, durationS, 's');
  // Rates over the last two seconds: a service that answers in waves would otherwise flicker to 0.
  const samples: Array<{ at: number; req: number; pts: number }> = [{ at: Date.now(), req: 0, pts: 0 }];
  const timer = setInterval(() => {
    const now = Date.now();
    const s = gen.stats;
    samples.push({ at: now, req: s.okRequests, pts: s.points });
    while (samples.length > 2 && now - samples[0].at > 2000) samples.shift();
    const first = samples[0];
    const dt = Math.max(1, now - first.at) / 1000;
    progress.update(Math.min(durationS, (now - (s.startedAt || now)) / 1000), {
      rps: (s.okRequests - first.req) / dt, pps: (s.points - first.pts) / dt, errors: s.httpErrors, events: events(),
    });
    if (limit.passed) gen.stop();
  }, 500);
  try {
    return await gen.run();
  } finally {
    clearInterval(timer);
    progress.update(durationS, { events: events() });
    progress.stop();
  }
}

/** A reference server's run under the same generator: the bare baseline, or the floor. */
interface Reference {
  stats: LoadStats;
  rssPeak: number;
  cpu?: CpuShare;
}

export async function runLoad(o: RunOptions): Promise<RunResult> {
  const limit = new Deadline(Date.now() + o.maxRuntimeS * 1000);
  const progress = new Progress(o.progress);
  const notes: string[] = [];
  const runId = `${o.seed.toString(36)}-${Date.now().toString(36)}`;
  // The world and the tracks cover the whole load phase: warm-up and measured seconds.
  const loadS = o.warmupS + o.durationS;
  const world = generateWorld({
    seed: o.seed, users: o.users, geofences: o.geofences, dwellS: o.dwellS, rateLimitS: o.rateLimitS, durationS: loadS,
    quietShare: o.quietShare, lateShare: o.lateShare, jitterShare: o.jitterShare, spacingM: o.spacingM, fillerShare: o.fillerShare, runId,
    shapeShare: shapesAllowed(o.zones) ? o.shapeShare : 0,
  });
  if (o.shapeShare > 0 && !shapesAllowed(o.zones)) notes.push('no polygon or corridor places: with these zone parameters their margin would depend on the radius the service gives them');
  const plans = world.users.map((u) => buildPlan(world, u, { seed: o.seed, durationS: loadS, dwellS: o.dwellS, zones: o.zones }));
  const ctx = { seed: o.seed, world, plans, zones: o.zones };
  const loadBase = { ctx, batch: o.batch, ...(o.ratePps ? { ratePps: o.ratePps } : {}), concurrency: o.concurrency, staleShare: o.staleShare };

  // 1. Baseline: bare Fastify, same generator, same bodies. Then the floor (load-tests/floor-server.ts),
  // the least this design does per point, when asked for: what no implementation can beat here.
  const reference = async (script: string, label: string, durationS: number, tokens: string[], env: Record<string, string> = {}) => {
    const server = await ChildServer.start({ script, env, port: await freePort() });
    try {
      // A reference server has no opening burst of events to wait out, only the JIT's first seconds.
      const warmupS = Math.min(o.warmupS, BASELINE_WARMUP_MAX_S);
      const gen = new LoadGenerator({
        ...loadBase, baseUrl: server.url, tokens, durationMs: (warmupS + durationS) * 1000, warmupMs: warmupS * 1000, record: false,
      });
      const watch = watchAfter(server.pid, warmupS * 1000);
      const stats = await drive(gen, warmupS + durationS, progress, label, () => 0, limit);
      return { stats, rssPeak: server.rss.peakMb, cpu: watch.stop().server };
    } finally {
      await server.stop();
    }
  };
  const baseline: Reference | undefined = o.baselineDurationS > 0
    ? await reference('load-tests/baseline-server.ts', 'baseline', o.baselineDurationS, world.users.map(() => 'baseline'))
    : undefined;
  let floor: (Reference & { callbacks: number }) | undefined;
  let floorBare: Reference | undefined;
  if (o.floorDurationS > 0) {
    const fixture = await floorFixture(world);
    try {
      // Without callbacks, then with them: the two bounds, and the cost of the callbacks between them.
      floorBare = await reference('load-tests/floor-server.ts', 'floor, no callbacks', o.floorDurationS, fixture.tokens, fixture.bareEnv);
      const ran = await reference('load-tests/floor-server.ts', 'floor', o.floorDurationS, fixture.tokens, fixture.callbackEnv);
      floor = { ...ran, callbacks: fixture.receiver.accepted };
    } finally {
      await fixture.close();
    }
  }

  // 2. The service.
  let service: ChildServer | undefined;
  let dataDir: string | undefined;
  let profileDir: string | undefined;
  const adminToken = randomBytes(24).toString('hex');
  if (!o.url) {
    dataDir = await mkdtemp(path.join(tmpdir(), 'geotrigger-load-'));
    if (o.cpuProfDir) {
      profileDir = path.resolve(o.cpuProfDir);
      await mkdir(profileDir, { recursive: true });
    }
    service = await ChildServer.start({
      script: 'src/server.ts',
      port: await freePort(),
      env: {
        DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, CALLBACK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn', DWELL_GRACE_MS: String(o.dwellGraceMs),
        DWELL_TOLERANCE_MS: String(o.dwellToleranceMs),
        ...(o.shards ? { SHARDS: String(o.shards) } : {}), ...o.serviceEnv,
      },
      nodeArgs: [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...(o.serviceNodeArgs ?? [])],
      logFile: o.serviceLog ? path.resolve(o.serviceLog) : path.join(dataDir, 'service.log'),
    });
  }
  const base = o.url ?? service!.url;
  const http = new HttpClient(base, o.setupConcurrency + 4);
  const api = new ServiceApi(http);
  const receiver0: { r?: CallbackReceiver } = {};
  const stream = new StreamSampler(base);
  try {
    let app: AppCredentials;
    if (o.url) {
      const token = await api.appToken(o.clientId!, o.clientSecret!);
      app = { client_id: o.clientId!, client_secret: o.clientSecret!, access_token: token, ...(o.webhookSecret ? { webhook_secret: o.webhookSecret } : {}) };
      const def = await api.defaultLayerId(token);
      if (def) app.default_layer_id = def;
      if (!o.webhookSecret) notes.push('No --webhook-secret: callback signatures were not verified.');
    } else {
      app = await api.createApp(adminToken, `load test ${runId}`);
    }
    // On loopback unless the service must reach the receiver from elsewhere (--callback-host).
    const loopback = o.callbackHost === '127.0.0.1' || o.callbackHost === 'localhost';
    const receiver = new CallbackReceiver({
      ...(app.webhook_secret ? { webhookSecret: app.webhook_secret } : {}), refuseFirstShare: o.callbackFailures, seed: o.seed,
      host: loopback ? '127.0.0.1' : '0.0.0.0',
    });
    receiver0.r = receiver;
    const receiverPort = new URL(await receiver.start()).port;
    const callbackBase = `http://${o.callbackHost}:${receiverPort}`;

    progress.start('setup', 100, '%');
    let setup: SetupResult;
    try {
      setup = await setupWorld(api, app, world, {
        concurrency: o.setupConcurrency, callbackBase, loadMs: loadS * 1000, deadline: limit.at,
        onProgress: (done, total, stage) => {
          if (done % 50 === 0 || done === total) {
            progress.update((done / total) * 100, { stage });
          }
        },
      });
    } finally {
      progress.stop();
    }
    progress.log(`setup: ${setup.calls} API calls in ${setup.seconds.toFixed(1)} s (${world.places.length} places, ${world.triggers.length} triggers, ${world.geofences.length} geofences, ${world.users.length} users)`);

    const sample = world.users.slice(0, o.streamSample).map((u) => ({ id: u.id!, token: u.token! }));
    if (sample.length > 0) await stream.open(sample);

    // 3. Load.
    const gen = new LoadGenerator({
      ...loadBase, baseUrl: base, tokens: world.users.map((u) => u.token!), durationMs: loadS * 1000, warmupMs: o.warmupS * 1000, record: true,
    });
    const watch = watchAfter(service?.pid, o.warmupS * 1000);
    const delivery = new DeliveryWatch(service?.pid);
    const outageFrom = Date.now();
    if (o.receiverOutageS > 0) receiver.outage(o.receiverOutageS);
    delivery.loadStarted();
    const stats = await drive(gen, loadS, progress, 'load', () => receiver.uniqueEvents, limit);
    const { server: serviceCpu, harness: cpu } = watch.stop();
    delivery.loadEnded(receiver.accepted);

    // 4. Settle: every dwell deadline of the last points has passed, with the service's tolerance
    // after it and the grace after its start (its clock fires a deadline only then), and callbacks
    // have stopped coming.
    const lastPoint = gen.phones.reduce((m, p) => Math.max(m, p.lastAckedT ?? 0), stats.startedAt);
    const maxAfter = world.triggers.reduce((m, t) => Math.max(m, t.afterS), 0);
    const outageEnd = outageFrom + o.receiverOutageS * 1000;
    const startHold = service ? service.spawnedAt + o.dwellGraceMs : 0;
    let until = Math.max(Date.now(), lastPoint + maxAfter * 1000 + o.dwellToleranceMs, startHold, outageEnd) + o.settleS * 1000;
    // Refused deliveries come back on the service's retry schedule: after an outage, up to the
    // 3 minutes the goal allows and some.
    const cap = until + (o.receiverOutageS > 0 ? 240_000 : o.callbackFailures > 0 ? 120_000 : 30_000);
    progress.start('settle', Math.ceil((until - Date.now()) / 1000), 's');
    let seen = receiver.accepted;
    const settleStart = Date.now();
    // Refused deliveries (--callback-failures) come back on the service's retry schedule.
    while ((Date.now() < until || (receiver.awaitingRetry > 0 && Date.now() < cap)) && !limit.passed) {
      await sleep(250);
      progress.update((Date.now() - settleStart) / 1000, { events: receiver.uniqueEvents });
      delivery.seen(receiver.accepted);
      // Still arriving: give it more time, up to the cap.
      if (receiver.accepted !== seen && Date.now() > until - 1000) {
        until = Math.min(cap, Date.now() + 1500);
        progress.setTotal((until - settleStart) / 1000);
      }
      seen = receiver.accepted;
    }
    progress.stop();
    const observedUntil = Date.now() - o.settleS * 1000;

    // 5. What arrived.
    progress.log('collecting messages…');
    const messages = await collectMessages(api, app.access_token, world.users.map((u) => ({ id: u.id! })), o.setupConcurrency, limit.at);
    stream.close();
    for (const m of messages) {
      const at = stream.arrivals.get(m.id);
      if (at !== undefined) m.arrivalAt = at;
    }
    const callbacks = mergeDeliveries(receiver.deliveries);
    const msgs = mergeDeliveries(messages);
    const received: ReceivedEvent[] = [...callbacks.events, ...msgs.events];

    // 6. The oracle over the exact accepted points, and the comparison.
    progress.log('running the oracle…');
    const oracle = replay(gen.pointContext, gen.phones.map((p) => p.rec), gen.excluded, observedUntil, {
      zones: o.zones, inFlightSlackMs: 5, dwellToleranceMs: o.dwellToleranceMs,
      // Spawned before it started: the oracle's idea of the grace ends early, never late.
      ...(service ? { serviceStart: { at: service.spawnedAt, graceMs: o.dwellGraceMs } } : {}),
    });
    const resolved = resolve(world, received, setup.layerIds);
    const m = matchEvents(oracle.expected, resolved, oracle.ambiguities, { toleranceMs: o.toleranceMs, excludedUsers: gen.excluded, layerIds: setup.layerIds });

    // 7. Stop the service (its CPU profiles are written on exit).
    let rssPeak: number | null = null;
    let rssTimeline: Array<{ t: number; mb: number }> = [];
    // The profile summary covers the measured seconds of the load phase, not setup and settling.
    const profileWindow = service ? { fromMs: stats.measuredFrom - service.spawnedAt, toMs: stats.endedAt - service.spawnedAt } : undefined;
    if (service) {
      rssPeak = Math.round(service.rss.peakMb * 10) / 10;
      rssTimeline = service.rss.samples.filter((s) => s.at >= stats.startedAt).map((s) => ({ t: Math.round((s.at - stats.startedAt) / 100) / 10, mb: Math.round(s.mb) }));
      const code = await service.stop();
      if (code !== 0 && code !== null) notes.push(`The service exited with code ${code} on SIGTERM.`);
      service = undefined;
    }
    const profile = profileDir ? await summarizeProfileDir(profileDir, profileWindow) : undefined;

    // 8. Report.
    const r = rates(stats);
    const br = baseline ? rates(baseline.stats) : undefined;
    const fr = floor ? rates(floor.stats) : undefined;
    const fbr = floorBare ? rates(floorBare.stats) : undefined;
    const eventsPerSecond: number[] = [];
    for (const d of receiver.deliveries) {
      const i = Math.floor(((d.arrivalAt ?? 0) - stats.startedAt) / 1000);
      if (i >= 0 && i < 100_000) eventsPerSecond[i] = (eventsPerSecond[i] ?? 0) + 1;
    }
    const { callbacks: callbackLatencies, messages: messageLatencies } = measuredLatencies(m.matched, stats.measuredFrom);
    if (gen.excluded.size > 0) notes.push(`${gen.excluded.size} users had requests that failed after retries; their events were not judged.`);
    if (stream.errors.length > 0) notes.push(`Live stream: ${stream.errors.slice(0, 3).join('; ')}`);
    if (receiver.refused > 0) notes.push(`The receiver refused ${receiver.refused} first deliveries with 503 (--callback-failures).`);
    if (oracle.ambiguities.length > 0) notes.push(`${oracle.ambiguities.length} (user, trigger, place) pairs could go either way for a correct engine from some moment on; their events from then were not judged (see ambiguous.reasons).`);
    if (o.ratePps && stats.missedSlots > 0) notes.push(`${stats.missedSlots} scheduled requests could not be sent: every connection was busy (the target rate was not reached).`);
    if (limit.passed) notes.push(`The run hit --max-runtime (${o.maxRuntimeS} s) and was cut short.`);
    const report: LoadReport = {
      version: 1,
      generated_at: new Date().toISOString(),
      ...(o.scenario ? { scenario: o.scenario } : {}),
      target: o.url ?? 'local service (embedded store)',
      users: world.users.length,
      geofences: world.geofences.length,
      places: world.places.length,
      triggers: world.triggers.length,
      duration_s: Math.round(r.seconds * 10) / 10,
      warmup_s: o.warmupS,
      mode: o.batch === 1 ? 'single' : 'batch',
      batch: o.batch,
      rate_target_pps: o.ratePps ?? null,
      half_load_of_pps: o.halfOfPps ?? null,
      concurrency: o.concurrency,
      seed: o.seed,
      requests: stats.attempts,
      points: stats.points,
      measured_points: stats.measuredPoints,
      requests_per_s: Math.round(r.rps),
      points_per_s: Math.round(r.pps),
      whole_run_points_per_s: Math.round(r.wholePps),
      baseline_requests_per_s: br ? Math.round(br.rps) : null,
      baseline_points_per_s: br ? Math.round(br.pps) : null,
      ratio_to_baseline: br && br.pps > 0 ? Math.round((r.pps / br.pps) * 1000) / 1000 : null,
      floor_points_per_s: fr ? Math.round(fr.pps) : null,
      floor_ratio_to_baseline: fr && br && br.pps > 0 ? Math.round((fr.pps / br.pps) * 1000) / 1000 : null,
      ratio_to_floor: fr && fr.pps > 0 ? Math.round((r.pps / fr.pps) * 1000) / 1000 : null,
      floor_cpu: fr && floor?.cpu ? floorCpu(fr.pps, floor.cpu) : null,
      floor_bare_points_per_s: fbr ? Math.round(fbr.pps) : null,
      floor_bare_ratio_to_baseline: fbr && br && br.pps > 0 ? Math.round((fbr.pps / br.pps) * 1000) / 1000 : null,
      floor_bare_cpu: fbr && floorBare?.cpu ? floorCpu(fbr.pps, floorBare.cpu) : null,
      floor_callbacks_per_point: floor && floor.stats.points > 0 ? Math.round((floor.callbacks / floor.stats.points) * 10_000) / 10_000 : null,
      callbacks_per_point: stats.points > 0 ? Math.round((callbacks.events.length / stats.points) * 10_000) / 10_000 : null,
      events_expected: oracle.expected.length,
      events_received: received.length,
      events_matched: m.matched.length,
      events_accounting: accountEvents(m),
      missed: m.missed.length,
      duplicates: m.duplicates.length,
      unexpected: m.unexpected.length,
      wrong_payload: m.wrongPayload.length,
      retries: callbacks.retries + msgs.retries,
      refused_deliveries: receiver.refused,
      ambiguous: { expected: m.ambiguousExpected, received: m.ambiguousReceived, marks: oracle.ambiguities.length, reasons: ambiguityReasons(oracle.ambiguities) },
      gated: oracle.gated,
      stale_points_ignored: oracle.staleIgnored,
      latency_ms: percentiles(callbackLatencies),
      message_latency_ms: percentiles(messageLatencies),
      request_latency_ms: percentiles(stats.latencies),
      baseline_request_latency_ms: baseline ? percentiles(baseline.stats.latencies) : null,
      latency_histogram: histogram(callbackLatencies),
      http_errors: stats.httpErrors,
      http_errors_by_status: stats.errorsByStatus,
      http_error_samples: stats.errorSamples,
      callback_problem_samples: receiver.samples,
      missed_slots: stats.missedSlots,
      rss_mb_peak: rssPeak,
      baseline_rss_mb_peak: baseline ? Math.round(baseline.rssPeak * 10) / 10 : null,
      excluded_users: gen.excluded.size,
      signature_checked: receiver.signatureChecked,
      phones: {
        walking: plans.filter((p) => p.mode === 'walk').length,
        cycling: plans.filter((p) => p.mode === 'cycle').length,
        driving: plans.filter((p) => p.mode === 'drive').length,
        quiet: plans.filter((p) => p.quiet).length,
        offline_windows: plans.reduce((n, p) => n + p.offline.length, 0),
        jittery: world.users.filter((u) => u.jitter).length,
        stale_points: gen.phones.reduce((n, p) => n + p.rec.stale.size, 0),
      },
      harness_cpu_share: cpu ? Math.round(((cpu.user + cpu.system) / 1e6 / r.seconds) * 100) / 100 : null,
      cpu: cpuReport(r.pps, serviceCpu, br?.pps, baseline?.cpu),
      events_by_kind: eventsByKind(world, oracle.expected, m),
      delivery: o.url ? null : delivery.figures({
        matched: m.matched, missedCallbacks: m.missed.filter((e) => world.triggers[e.trigger]?.type === 'callback').length,
        callbacks: callbacks.events.length, points: stats.points, loadStartedAt: stats.startedAt, measuredFrom: stats.measuredFrom, loadEndedAt: stats.endedAt,
        ...(o.receiverOutageS > 0 ? { outage: { from: outageFrom, seconds: o.receiverOutageS } } : {}),
      }),
      lists: summarizeLists(world, m),
      timeline: timeline(stats, eventsPerSecond),
      baseline_timeline: baseline ? timeline(baseline.stats) : [],
      rss_timeline: rssTimeline,
      setup: { seconds: Math.round(setup.seconds * 10) / 10, calls: setup.calls },
      goals: [],
      ...(profile ? { profile } : {}),
      notes,
    };
    if (dataDir) report.store = storeSize(dataDir, DATABASE_FILE);
    report.goals = evaluateGoals(report);
    const file = o.report ?? path.join('load-tests', 'reports', `load-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    const files = await writeReport(report, file);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    return { report, files };
  } finally {
    progress.stop();
    stream.close();
    await receiver0.r?.stop();
    await http.close().catch(() => undefined);
    if (service) {
      // An error before the end: keep DATA_DIR and its service.log for a post-mortem.
      await service.stop();
      if (dataDir) process.stderr.write(`service data and log kept in ${dataDir}\n`);
    }
  }
}

export type { World };
