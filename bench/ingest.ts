// Ingestion benchmark (`npx tsx bench/ingest.ts`): how many location updates the whole
// service takes, as a ratio to a bare Fastify route driven the same way on the same machine. It
// is the quick loop for performance work; `npm run load` is the full harness with the oracle.
//
// For each geofence count it seeds a fresh DATA_DIR through the service's own store and services
// (an application, one enter message trigger on the default layer, places on a grid, users with
// tokens: seconds for 100,000 places, where the API would take minutes), starts src/server.ts on
// it as a child process, and drives POST /1/location/update over loopback with keep-alive undici
// connections: single points, then batches. Phones random-walk across the grid (so they enter and
// leave places and triggers fire), one request in flight per phone, device times strictly
// increasing per phone. The bare baseline (load-tests/baseline-server.ts) gets the same bodies.
// Prints req/s, points/s and latency p50/p95/p99 per run, the ratios to the baseline, and the
// 100k/1k throughput ratio. Every phase is bounded in time; only loopback is used.
//
//   --users N (2000)  --fences 1000,100000  --modes single,batch  --batch 50  --duration S (15)
//   --single-concurrency 64  --batch-concurrency 32  --half (also an open-loop run at half the max
//   single-point rate, for latency)  --cpu-prof DIR (profile the service)  --shards N
//   --env NAME=VALUE (repeatable: service environment, for A/B runs)  --no-baseline
//   --show-log (print the end of the service's output)
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { loadConfig } from '../src/config.js';
import type { ServiceContext } from '../src/services/context.js';
import { buildServiceContext } from '../src/plugins/service-context.js';
import { createApplication } from '../src/services/applications.js';
import { createTrigger } from '../src/services/triggers.js';
import { createAnonUser } from '../src/services/users.js';
import type { PlaceDoc } from '../src/store/documents.js';
import { newId } from '../src/store/ids.js';
import { openStore } from '../src/store/store.js';
import { ChildServer, cpuSeconds, freePort } from '../load-tests/processes.js';

const { values: opt } = parseArgs({
  options: {
    users: { type: 'string', default: '2000' },
    fences: { type: 'string', default: '1000,100000' },
    modes: { type: 'string', default: 'single,batch' },
    batch: { type: 'string', default: '50' },
    duration: { type: 'string', default: '15' },
    'single-concurrency': { type: 'string', default: '64' },
    'batch-concurrency': { type: 'string', default: '32' },
    half: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    shards: { type: 'string' },
    'no-baseline': { type: 'boolean', default: false },
    env: { type: 'string', multiple: true, default: [] },
    'show-log': { type: 'boolean', default: false },
  },
});

const USERS = Number(opt.users);
const FENCES = opt.fences!.split(',').map(Number);
const MODES = opt.modes!.split(',') as Array<'single' | 'batch'>;
const BATCH = Number(opt.batch);
const DURATION_MS = Number(opt.duration) * 1000;
const CONCURRENCY = { single: Number(opt['single-concurrency']), batch: Number(opt['batch-concurrency']) };
const SPACING_M = 350;
const CENTER = { lat: 45.5, lon: -122.6 };
const M_PER_DEG_LAT = 111_320;
const M_PER_DEG_LON = M_PER_DEG_LAT * Math.cos((CENTER.lat * Math.PI) / 180);
const ADMIN_TOKEN = 'bench-ingest-admin-token-0123456789';
/** Hard limit of the whole run. */
const MAX_RUNTIME_MS = 30 * 60_000;

// ---- the world: a grid of places with constant density, so 100k covers a wider region ----------

/** Deterministic pseudo-random numbers (mulberry32): the same world and walks on every run. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Grid {
  side: number;
  places: Array<{ lat: number; lon: number; radius: number }>;
}

function grid(count: number): Grid {
  const side = Math.ceil(Math.sqrt(count));
  const r = rng(count);
  const places: Grid['places'] = [];
  for (let i = 0; i < count; i++) {
    const x = (i % side) * SPACING_M + (r() - 0.5) * 100;
    const y = Math.floor(i / side) * SPACING_M + (r() - 0.5) * 100;
    places.push({ lat: CENTER.lat + y / M_PER_DEG_LAT, lon: CENTER.lon + x / M_PER_DEG_LON, radius: 60 + Math.round(r() * 90) });
  }
  return { side, places };
}

/** A phone walking at ~5 m per point with slowly turning heading, kept inside the grid. */
class Phone {
  x: number;
  y: number;
  heading: number;
  at: number;
  private readonly r: () => number;

  constructor(readonly token: string, seed: number, readonly extentM: number, start: number) {
    this.r = rng(seed);
    this.x = this.r() * extentM;
    this.y = this.r() * extentM;
    this.heading = this.r() * 2 * Math.PI;
    this.at = start;
  }

  nextPoint(): string {
    this.heading += (this.r() - 0.5) * 0.6;
    this.x += Math.cos(this.heading) * 5;
    this.y += Math.sin(this.heading) * 5;
    if (this.x < 0 || this.x > this.extentM) this.heading = Math.PI - this.heading;
    if (this.y < 0 || this.y > this.extentM) this.heading = -this.heading;
    this.x = Math.min(Math.max(this.x, 0), this.extentM);
    this.y = Math.min(Math.max(this.y, 0), this.extentM);
    this.at += 1000;
    const lat = (CENTER.lat + this.y / M_PER_DEG_LAT).toFixed(7);
    const lon = (CENTER.lon + this.x / M_PER_DEG_LON).toFixed(7);
    const acc = (5 + this.r() * 20).toFixed(1);
    return `{"date":"${new Date(this.at).toISOString()}","location":{"type":"point","position":{"latitude":${lat},"longitude":${lon},"horizontal_accuracy":${acc},"speed":54,"altitude":0,"heading":0,"vertical_accuracy":0}},"raw":null}`;
  }

  body(points: number): string {
    const parts: string[] = [];
    for (let i = 0; i < points; i++) parts.push(this.nextPoint());
    return `[${parts.join(',')}]`;
  }
}

// ---- seeding through the store ------------------------------------------------------------------

async function seed(dataDir: string, fences: number): Promise<string[]> {
  const config = loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN, LOG_LEVEL: 'silent', CALLBACK_ALLOW_PRIVATE: 'true' });
  const store = await openStore({ kind: 'embedded', dataDir });
  const ctx: ServiceContext = buildServiceContext({ store, config }).ctx;
  try {
    const app = await createApplication(ctx, 'bench-ingest');
    const appDoc = (await store.applications.get(app.application_id))!;
    const now = Date.now();
    const docs: PlaceDoc[] = grid(fences).places.map((p, i) => ({
      _id: newId(), app_id: appDoc._id, layer_id: appDoc.default_layer_id, name: `p${i}`, description: '',
      latitude: p.lat, longitude: p.lon, radius: p.radius, extra: {}, created_at: now,
    }));
    for (let i = 0; i < docs.length; i += 5000) await Promise.all(docs.slice(i, i + 5000).map((d) => store.places.insert(d)));
    await createTrigger(ctx, appDoc._id, appDoc.default_layer_id, {
      key: 'enter', type: 'message', text: 'Welcome', trigger_on: 'enter', layer_id: appDoc.default_layer_id,
    });
    const auth = { kind: 'client' as const, app: appDoc, secretVerified: true };
    const tokens: string[] = [];
    for (let i = 0; i < USERS; i += 100) {
      const chunk = await Promise.all(Array.from({ length: Math.min(100, USERS - i) }, () => createAnonUser(ctx, auth, {})));
      for (const u of chunk) tokens.push(u.access_token);
    }
    return tokens;
  } finally {
    await store.close();
  }
}

// ---- the load ----------------------------------------------------------------------------------

interface RunResult {
  target: string;
  mode: 'single' | 'batch';
  fences: number | null;
  requests: number;
  points: number;
  errors: Map<string, number>;
  seconds: number;
  latencies: number[];
  ratePps?: number;
  /** CPU µs per point of the server process: all threads, and its main thread. */
  cpuUsPerPoint?: { all: number; main: number };
  /** CPU µs per point of this process, the load generator (it shares the box with the server). */
  genUsPerPoint?: number;
}

/**
 * Phones take turns, one request in flight per phone. Closed loop by default; with `ratePps`,
 * requests are scheduled by the clock and latency counts from the scheduled moment.
 */
async function drive(server: ChildServer, target: string, mode: 'single' | 'batch', fences: number | null, phones: Phone[], ratePps?: number): Promise<RunResult> {
  const url = server.url;
  const cpu0 = cpuSeconds(server.pid);
  const gen0 = process.cpuUsage();
  const connections = CONCURRENCY[mode];
  const perRequest = mode === 'single' ? 1 : BATCH;
  const pool = new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const res: RunResult = { target, mode, fences, requests: 0, points: 0, errors: new Map(), seconds: 0, latencies: [], ratePps };
  const idle = [...phones];
  const started = performance.now();
  const end = started + DURATION_MS;
  const interval = ratePps ? (1000 * perRequest) / ratePps : 0;
  let scheduled = 0;
  const worker = async () => {
    while (performance.now() < end) {
      let t0 = performance.now();
      if (interval) {
        const due = started + scheduled++ * interval;
        if (due > end) break;
        if (due > t0) await new Promise((r) => setTimeout(r, due - t0));
        t0 = due;
      }
      const phone = idle.shift();
      if (!phone) break;
      const body = phone.body(perRequest);
      let status: string;
      try {
        const r = await pool.request({
          method: 'POST', path: '/1/location/update', body,
          headers: { 'content-type': 'application/json', authorization: `OAuth ${phone.token}` },
        });
        await r.body.text();
        status = String(r.statusCode);
      } catch (err) {
        status = (err as { code?: string }).code ?? 'error';
      }
      idle.push(phone);
      res.latencies.push(performance.now() - t0);
      res.requests++;
      if (status === '200') res.points += perRequest;
      else res.errors.set(status, (res.errors.get(status) ?? 0) + 1);
    }
  };
  // Open loop needs more requests in flight than connections when the server falls behind.
  await Promise.all(Array.from({ length: ratePps ? connections * 4 : connections }, worker));
  res.seconds = (performance.now() - started) / 1000;
  const cpu1 = cpuSeconds(server.pid);
  const gen = process.cpuUsage(gen0);
  if (res.points > 0) res.genUsPerPoint = (gen.user + gen.system) / res.points;
  if (cpu0 && cpu1 && res.points > 0) {
    res.cpuUsPerPoint = { all: ((cpu1.all - cpu0.all) * 1e6) / res.points, main: ((cpu1.main - cpu0.main) * 1e6) / res.points };
  }
  await pool.close();
  return res;
}

// ---- report ------------------------------------------------------------------------------------

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN);
const rps = (r: RunResult) => r.requests / r.seconds;
const pps = (r: RunResult) => r.points / r.seconds;

function printTable(results: RunResult[]) {
  const head = ['target', 'mode', 'fences', 'req/s', 'points/s', 'p50 ms', 'p95 ms', 'p99 ms', 'cpu µs/pt', 'main µs/pt', 'gen µs/pt', 'errors'];
  const rows = results.map((r) => {
    const s = [...r.latencies].sort((a, b) => a - b);
    const errs = [...r.errors].map(([k, v]) => `${k}×${v}`).join(' ') || '0';
    return [
      r.target + (r.ratePps ? ` @${Math.round(r.ratePps)}pps` : ''), r.mode, r.fences === null ? '—' : String(r.fences),
      rps(r).toFixed(0), pps(r).toFixed(0), pct(s, 50).toFixed(1), pct(s, 95).toFixed(1), pct(s, 99).toFixed(1),
      r.cpuUsPerPoint?.all.toFixed(1) ?? '—', r.cpuUsPerPoint?.main.toFixed(1) ?? '—', r.genUsPerPoint?.toFixed(1) ?? '—', errs,
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 || i === 11 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r));
}

function printRatios(results: RunResult[]) {
  const base = (mode: string) => results.find((r) => r.target === 'baseline' && r.mode === mode);
  for (const r of results) {
    if (r.target !== 'service' || r.ratePps) continue;
    const b = base(r.mode);
    if (!b) continue;
    console.log(`ratio ${r.mode} ${r.fences} fences: ${(pps(r) / pps(b)).toFixed(3)} of the baseline (${pps(r).toFixed(0)} / ${pps(b).toFixed(0)} points/s)`);
    // Main-thread CPU per point is what bounds throughput when the box is not shared.
    if (r.cpuUsPerPoint && b.cpuUsPerPoint) {
      console.log(`  main-thread CPU per point: ${r.cpuUsPerPoint.main.toFixed(1)} µs vs the baseline's ${b.cpuUsPerPoint.main.toFixed(1)} µs (ratio ${(b.cpuUsPerPoint.main / r.cpuUsPerPoint.main).toFixed(3)})`);
    }
    // The generator shares the cores: with every thread of both processes kept busy, the box
    // serves at most cores / (server + generator CPU per point). The ratio of the two ceilings is
    // the best ratio that spreading the same work over more threads or processes could reach.
    const ceiling = (x: RunResult) => (x.cpuUsPerPoint && x.genUsPerPoint ? (cpus().length * 1e6) / (x.cpuUsPerPoint.all + x.genUsPerPoint) : undefined);
    const [cr, cb] = [ceiling(r), ceiling(b)];
    if (cr && cb) {
      console.log(`  ${cpus().length}-core ceiling (all CPU of server and generator): ${cr.toFixed(0)} vs ${cb.toFixed(0)} points/s, ratio ${(cr / cb).toFixed(3)}; `
        + `box busy ${((100 * pps(r)) / cr).toFixed(0)} % vs ${((100 * pps(b)) / cb).toFixed(0)} %`);
    }
  }
  for (const mode of MODES) {
    const runs = results.filter((r) => r.target === 'service' && r.mode === mode && !r.ratePps);
    const small = runs.find((r) => r.fences === Math.min(...FENCES));
    const big = runs.find((r) => r.fences === Math.max(...FENCES));
    if (small && big && small !== big) console.log(`scaling ${mode}: ${big.fences} / ${small.fences} fences = ${(pps(big) / pps(small)).toFixed(3)}`);
  }
}

// ---- main --------------------------------------------------------------------------------------

async function main() {
  const hardStop = setTimeout(() => {
    console.error('bench/ingest: hard time limit reached');
    process.exit(2);
  }, MAX_RUNTIME_MS);
  hardStop.unref();
  console.log(`bench/ingest: ${cpus().length} CPUs, node ${process.version}, ${USERS} users, fences ${FENCES.join('/')}, ${opt.duration} s per run`);
  const results: RunResult[] = [];
  const start = Date.now() - 6 * 3600_000;

  if (!opt['no-baseline']) {
    const baseline = await ChildServer.start({ script: 'load-tests/baseline-server.ts', env: {}, port: await freePort() });
    try {
      const phones = Array.from({ length: USERS }, (_, i) => new Phone('baseline', i + 1, SPACING_M * 30, start));
      for (const mode of MODES) {
        results.push(await drive(baseline, 'baseline', mode, null, phones));
        console.log(`  baseline ${mode}: ${pps(results.at(-1)!).toFixed(0)} points/s`);
      }
    } finally {
      await baseline.stop();
    }
  }

  for (const fences of FENCES) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'geotrigger-bench-ingest-'));
    try {
      const t0 = Date.now();
      const tokens = await seed(dataDir, fences);
      console.log(`  seeded ${fences} fences and ${USERS} users in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      const env: Record<string, string> = { DATA_DIR: dataDir, ADMIN_TOKEN, LOG_LEVEL: 'warn', CALLBACK_ALLOW_PRIVATE: 'true', MONGODB_URL: '' };
      if (opt.shards) env.SHARDS = opt.shards;
      for (const kv of opt.env ?? []) env[kv.slice(0, kv.indexOf('='))] = kv.slice(kv.indexOf('=') + 1);
      const nodeArgs = opt['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opt['cpu-prof'])}`] : [];
      const service = await ChildServer.start({ script: 'src/server.ts', env, port: await freePort(), nodeArgs, readyTimeoutMs: 180_000 });
      try {
        const extent = grid(fences).side * SPACING_M;
        const phones = tokens.map((t, i) => new Phone(t, i + 1, extent, start));
        for (const mode of MODES) {
          const r = await drive(service, 'service', mode, fences, phones);
          results.push(r);
          console.log(`  service ${mode} ${fences} fences: ${pps(r).toFixed(0)} points/s, rss ${service.rss.peakMb.toFixed(0)} MB`);
          if (opt.half && mode === 'single') {
            results.push(await drive(service, 'service', mode, fences, phones, pps(r) / 2));
          }
        }
      } finally {
        await service.stop();
        if (opt['show-log']) console.log(service.output);
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  console.log('');
  printTable(results);
  console.log('');
  printRatios(results);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
