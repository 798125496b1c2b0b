// Benchmark of the trigger engine alone (no HTTP, no store): a city with 10,000 geofences and
// 10,000 moving users, points handed to the Engine in batches (real worker threads), effects out.
// Prints throughput, XState transitions vs points, and memory per pair that is not outside.
// `--shape polygon` makes every place a polygon of 20–200 corners (`corridor`: a route of 2–20
// legs) instead of a circle of the same size at the same spot, on the same tracks.
// Run: npx tsx bench/engine.ts [--users N] [--fences N] [--steps N] [--shards N] [--shape circle|polygon|corridor] [--only engine|inprocess]
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { Engine, type ApplyResult } from '../src/engine/engine.js';
import { destinationPoint } from '../src/geo/distance.js';
import type { Position } from '../src/geo/geometry.js';
import { prepareShape, type Shape } from '../src/geo/shape.js';
import { fenceKey, type Geofence, type PointBatch, type PointInput, type RecordSeed, type UserSeed } from '../workers/protocol.js';
import { ShardState } from '../workers/shard-state.js';
import { threadCpuMs } from '../workers/shard-worker.js';
import { numberArg } from './args.js';

const USERS = numberArg('users', 10_000);
const FENCES = numberArg('fences', 10_000);
const STEPS = numberArg('steps', 60); // one point per user per step
const WARMUP = numberArg('warmup', 8);
const SHARDS = numberArg('shards', 2);
const LAYERS = 10;
const STEP_MS = 5_000;
const T0 = Date.UTC(2024, 5, 3, 7, 0, 0);
const argOf = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const SHAPE = argOf('shape', 'circle') as 'circle' | 'polygon' | 'corridor';
const ONLY = argOf('only', 'all');

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

// ---- a seeded city ------------------------------------------------------------------------------

let seed = 0x2f6b1a3d;
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const gauss = () => Math.sqrt(-2 * Math.log(rnd() || 1e-12)) * Math.cos(2 * Math.PI * rnd());

const CITY = { lat: 45.52, lon: -122.68 };
const CITY_RADIUS_M = 20_000;
const HOTSPOTS = Array.from({ length: 25 }, () => destinationPoint(CITY.lat, CITY.lon, rnd() * 360, Math.sqrt(rnd()) * CITY_RADIUS_M * 0.7));

/** Half of everything clusters around hotspots (downtowns, malls), the rest spreads over the city. */
function cityPoint(): { lat: number; lon: number } {
  if (rnd() < 0.5) {
    const h = HOTSPOTS[Math.floor(rnd() * HOTSPOTS.length)]!;
    return destinationPoint(h.lat, h.lon, rnd() * 360, Math.abs(gauss()) * 800);
  }
  return destinationPoint(CITY.lat, CITY.lon, rnd() * 360, Math.sqrt(rnd()) * CITY_RADIUS_M);
}

/**
 * A place of `radius` at `c` as a shape: a polygon of 20–200 corners between 0.75 and 1.25 radii
 * from the centre (its inner circle then about 0.75 radius), or a route of 2–20 legs as wide as the
 * radius, leaving the centre.
 */
let shapeSeed = 0x51a9e3;
/** The shapes' own random numbers, so that every mode draws the same city and the same tracks. */
const srnd = () => {
  shapeSeed = (shapeSeed + 0x6d2b79f5) | 0;
  let t = Math.imul(shapeSeed ^ (shapeSeed >>> 15), 1 | shapeSeed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

function shapeAt(c: { lat: number; lon: number }, radius: number): { shape: Shape; radius: number } | null {
  if (SHAPE === 'polygon') {
    const n = 20 + Math.floor(srnd() * 181);
    const ring: Position[] = [];
    for (let k = 0; k < n; k++) {
      const p = destinationPoint(c.lat, c.lon, (k * 360) / n, radius * (0.75 + srnd() * 0.5));
      ring.push([p.lon, p.lat]);
    }
    ring.push([...ring[0]!] as Position);
    const shape = prepareShape({ type: 'Polygon', coordinates: [ring] }, undefined, c);
    // As the API would store it: the depth of its centre.
    return { shape, radius: Math.max(1, Math.floor(shape.inner)) };
  }
  if (SHAPE === 'corridor') {
    const line: Position[] = [[c.lon, c.lat]];
    let at = c;
    for (let k = 1 + Math.floor(srnd() * 20); k > 0; k--) {
      at = destinationPoint(at.lat, at.lon, srnd() * 360, radius * (1 + srnd() * 4));
      line.push([at.lon, at.lat]);
    }
    return { shape: prepareShape({ type: 'LineString', coordinates: line }, radius, c), radius: radius / 2 };
  }
  return null;
}

const fences: Geofence[] = [];
for (let i = 0; i < FENCES; i++) {
  const c = cityPoint();
  const r = rnd();
  const layer = i % LAYERS;
  const size = Math.round(30 * Math.pow(10, rnd())); // 30..300 m, log-uniform
  const shaped = shapeAt(c, size);
  fences.push({
    key: fenceKey(`trg${i}`, `plc${i}`),
    triggerId: `trg${i}`,
    placeId: `plc${i}`,
    layerId: `layer${layer}`,
    lat: c.lat,
    lon: c.lon,
    radius: shaped?.radius ?? size,
    ...(shaped ? { shape: shaped.shape } : {}),
    triggerOn: r < 0.25 ? 'leave' : 'enter',
    triggerAfterS: r > 0.85 ? 60 + Math.floor(rnd() * 240) : 0,
    oneTime: r > 0.95,
    rateLimitS: layer === 3 ? 600 : 0,
    window: layer === 5 ? { daily: [{ from: 8 * 3600, to: 20 * 3600 }] } : null,
  });
}

const users: UserSeed[] = [];
for (let i = 0; i < USERS; i++) {
  const a = 1 + Math.floor(rnd() * (LAYERS - 1));
  const b = 1 + Math.floor(rnd() * (LAYERS - 1));
  users.push({ userId: `user-${i.toString(36)}`, layers: ['layer0', `layer${a}`, `layer${b}`], timezone: 'America/Los_Angeles' });
}

// ---- tracks: phones mostly stay somewhere (home, work, a shop) and sometimes travel ----------------
// Each user alternates stays (exponential, mean 20 min, GPS jitter only) and trips to a stop
// 0.3–6 km away (half of them a geofence, so dwells happen) on foot, bike or car depending on
// the distance. About a third of the users are on the move at any time.

interface Mover {
  lat: number;
  lon: number;
  to: { lat: number; lon: number } | null;
  speed: number;
  staySteps: number;
}
const STAY_MEAN_STEPS = (20 * 60 * 1000) / STEP_MS;

function startTrip(m: Mover): void {
  const f = fences[Math.floor(rnd() * fences.length)]!;
  const to = rnd() < 0.5 && Math.abs(f.lat - m.lat) < 0.05 ? { lat: f.lat, lon: f.lon } : destinationPoint(m.lat, m.lon, rnd() * 360, 300 + rnd() * 5700);
  const km = Math.hypot((to.lat - m.lat) * 111.2, (to.lon - m.lon) * 111.2 * Math.cos((m.lat * Math.PI) / 180));
  m.to = to;
  m.speed = km < 1.2 ? 1.4 : km < 3 ? 4.5 : 11;
}

const movers: Mover[] = users.map(() => {
  const m: Mover = { ...cityPoint(), to: null, speed: 0, staySteps: Math.floor(-Math.log(rnd() || 1e-9) * STAY_MEAN_STEPS) };
  if (rnd() < 0.3) startTrip(m);
  return m;
});

function nextPoint(m: Mover, userId: string, at: number): PointInput {
  if (m.to === null) {
    if (--m.staySteps <= 0) startTrip(m);
  } else {
    const dLat = (m.to.lat - m.lat) * 111_195;
    const dLon = (m.to.lon - m.lon) * 111_195 * Math.cos((m.lat * Math.PI) / 180);
    const dist = Math.hypot(dLat, dLon);
    const stepM = m.speed * (STEP_MS / 1000);
    if (dist <= stepM) {
      m.lat = m.to.lat;
      m.lon = m.to.lon;
      m.to = null;
      m.staySteps = Math.floor(-Math.log(rnd() || 1e-9) * STAY_MEAN_STEPS);
    } else {
      m.lat += (dLat / dist) * (stepM / 111_195);
      m.lon += (dLon / dist) * (stepM / (111_195 * Math.cos((m.lat * Math.PI) / 180)));
    }
  }
  const acc = rnd() < 0.03 ? 150 + rnd() * 300 : 5 + rnd() * 25;
  const j = destinationPoint(m.lat, m.lon, rnd() * 360, Math.abs(gauss()) * acc * 0.5);
  return { userId, at, lat: j.lat, lon: j.lon, acc };
}

console.log(`generating ${USERS} users × ${WARMUP + STEPS} steps over ${FENCES} geofences…`);
// Kept in columns (off the JS heap): a benchmark holding 700k point objects would make every
// major GC of the process it runs in pay for them. Objects are made per call, as a host would.
const userIds = users.map((u) => u.userId);
const batches: PointBatch[] = [];
for (let s = 0; s < WARMUP + STEPS; s++) {
  const at = T0 + s * STEP_MS;
  const b: PointBatch = {
    users: userIds,
    user: Int32Array.from(userIds, (_, i) => i),
    at: new Float64Array(USERS),
    lat: new Float64Array(USERS),
    lon: new Float64Array(USERS),
    acc: new Float64Array(USERS),
    recv: new Float64Array(USERS).fill(NaN),
  };
  for (let i = 0; i < USERS; i++) {
    const p = nextPoint(movers[i]!, userIds[i]!, at);
    b.at[i] = p.at;
    b.lat[i] = p.lat;
    b.lon[i] = p.lon;
    b.acc[i] = p.acc ?? NaN;
  }
  batches.push(b);
}
function pointsOf(b: PointBatch): PointInput[] {
  const out: PointInput[] = new Array(b.at.length);
  for (let i = 0; i < b.at.length; i++) out[i] = { userId: b.users[b.user[i]!]!, at: b.at[i]!, lat: b.lat[i]!, lon: b.lon[i]!, acc: b.acc[i]! };
  return out;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const count = (r: ApplyResult, acc: Record<string, number>) => {
  for (const e of r.effects) acc[e.type] = (acc[e.type] ?? 0) + 1;
  acc.changes = (acc.changes ?? 0) + r.changes.length;
};

// ---- 1. the Engine with real worker threads ------------------------------------------------------

async function benchEngine(): Promise<void> {
  const engine = new Engine({ shards: SHARDS });
  const t0 = performance.now();
  await engine.start({ fences, users });
  console.log(`\nEngine (${SHARDS} shards, Piscina worker threads) started in ${fmt(performance.now() - t0)} ms`);
  const effects: Record<string, number> = {};
  for (let s = 0; s < WARMUP; s++) {
    await engine.applyPoints(pointsOf(batches[s]!));
    await engine.tick(T0 + s * STEP_MS);
  }
  const before = await engine.stats();
  // Two calls in flight, as concurrent location/update requests would be.
  const inflight: Promise<void>[] = [];
  const cpu0 = process.cpuUsage();
  const main0 = threadCpuMs() ?? 0;
  const start = performance.now();
  for (let s = WARMUP; s < WARMUP + STEPS; s++) {
    const now = T0 + s * STEP_MS;
    inflight.push(engine.applyPoints(pointsOf(batches[s]!)).then((r) => count(r, effects)));
    inflight.push(engine.tick(now).then((r) => count(r, effects)));
    if (inflight.length >= 4) await Promise.all(inflight.splice(0, 2));
  }
  await Promise.all(inflight);
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  const mainMs = (threadCpuMs() ?? 0) - main0;
  const after = await engine.stats();
  const sum = (xs: typeof after, k: 'points' | 'machineRuns' | 'indexQueries' | 'oldPoints') => xs.reduce((n, x) => n + x[k], 0);
  const points = sum(after, 'points') - sum(before, 'points');
  const runs = sum(after, 'machineRuns') - sum(before, 'machineRuns');
  const queries = sum(after, 'indexQueries') - sum(before, 'indexQueries');
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(`  points evaluated   ${fmt(points)} in ${fmt(ms)} ms → ${fmt((points / ms) * 1000)} points/s wall (batches of ${fmt(USERS)} point objects made per call, 2 calls in flight)`);
  console.log(`  CPU (all threads)  ${fmt(cpuMs)} ms → ${fmt((points / cpuMs) * 1000)} points per CPU-second (${(cpuMs / ms).toFixed(2)} cores busy)`);
  const shardCpu = after.map((a, i) => (a.threadCpuMs ?? NaN) - (before[i]!.threadCpuMs ?? NaN));
  if (shardCpu.every(Number.isFinite)) {
    const busiest = Math.max(...shardCpu);
    console.log(`  thread CPU         main ${fmt(mainMs)} ms, shards ${shardCpu.map(fmt).join(' / ')} ms, other threads (GC helpers, libuv) ${fmt(cpuMs - mainMs - shardCpu.reduce((a, b) => a + b, 0))} ms`);
    console.log(`  projection         a free core per shard: ${fmt((points / busiest) * 1000)} points/s; all this CPU spread over 2 free cores: ${fmt((points / cpuMs) * 2000)} points/s`);
  }
  console.log(`  XState transitions ${fmt(runs)} for ${fmt(points)} points (${((runs / points) * 100).toFixed(2)} %); ${fmt(points - runs)}+ points ran none`);
  console.log(`  index queries      ${fmt(queries)} (${((queries / points) * 100).toFixed(1)} % of points; the rest hit the per-user nearby cache)`);
  console.log(`  effects out        ${JSON.stringify(effects)}`);
  for (const [i, s] of after.entries()) {
    console.log(`  shard ${i}: ${fmt(s.users)} users, ${fmt(s.records)} records ${JSON.stringify(s.byState)}, worker heap ${(s.heapUsed / 2 ** 20).toFixed(1)} MiB (no forced GC)`);
  }
  await engine.close();
}

// ---- 2. in-process ShardState baseline, and memory ------------------------------------------------

function benchInProcess(): RecordSeed[] {
  const h0 = heap();
  const shard = new ShardState();
  shard.load({ fences, users });
  const hLoaded = heap();
  for (let s = 0; s < WARMUP; s++) {
    shard.applyBatch(batches[s]!);
    shard.tick(T0 + s * STEP_MS);
  }
  const before = shard.stats();
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const effects: Record<string, number> = {};
  for (let s = WARMUP; s < WARMUP + STEPS; s++) {
    count(shard.applyBatch(batches[s]!), effects);
    count(shard.tick(T0 + s * STEP_MS), effects);
  }
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const after = shard.stats();
  const points = after.points - before.points;
  const runs = after.machineRuns - before.machineRuns;
  console.log(`\nIn-process ShardState (one thread, all users, no messaging)`);
  console.log(`  points evaluated   ${fmt(points)} in ${fmt(ms)} ms → ${fmt((points / ms) * 1000)} points/s wall`);
  console.log(`  CPU                ${fmt(cpuMs)} ms → ${fmt((points / cpuMs) * 1000)} points per CPU-second`);
  console.log(`  XState transitions ${fmt(runs)} (${((runs / points) * 100).toFixed(2)} % of points)`);
  const hRun = heap();
  const records = [...shard.records()];
  console.log(`  heap: fences+users loaded ${((hLoaded - h0) / 2 ** 20).toFixed(1)} MiB; after ${WARMUP + STEPS} steps ${((hRun - h0) / 2 ** 20).toFixed(1)} MiB with ${fmt(records.length)} records ${JSON.stringify(after.byState)}`);
  return records;
}

/** Bytes per non-outside pair, and how a shard's base memory scales with users and geofences. */
function memoryPerPair(records: RecordSeed[]): void {
  const base = (fs: Geofence[], us: UserSeed[]) => {
    const h0 = heap();
    const s = new ShardState();
    s.load({ fences: fs, users: us });
    return { shard: s, bytes: heap() - h0 };
  };
  const one = base(fences, users);
  const h1 = heap();
  one.shard.load({ records: structuredClone(records) });
  const perPair = (heap() - h1) / records.length;
  one.shard = null as unknown as ShardState;
  // Twice the geofences and twice the users: four times the (user, geofence) pairs.
  const moreFences = fences.map((f) => ({ ...f, key: fenceKey(`${f.triggerId}x`, f.placeId), triggerId: `${f.triggerId}x` }));
  const moreUsers = users.map((u) => ({ ...u, userId: `${u.userId}x` }));
  const two = base([...fences, ...moreFences], [...users, ...moreUsers]);
  const mib = (b: number) => (b / 2 ** 20).toFixed(1);
  console.log(`\nMemory (in-process shard, GC forced)`);
  console.log(`  per non-outside pair  ${fmt(perPair)} bytes (heap delta of loading ${fmt(records.length)} records: record, ≤5 transitions, map entry)`);
  console.log(`  shard with ${fmt(USERS)} users + ${fmt(FENCES)} geofences, no records: ${mib(one.bytes)} MiB  (${fmt(USERS * FENCES)} user×geofence pairs cost nothing)`);
  console.log(`  shard with ${fmt(2 * USERS)} users + ${fmt(2 * FENCES)} geofences, no records: ${mib(two.bytes)} MiB  (×4 pairs, ×${(two.bytes / one.bytes).toFixed(1)} memory)`);
}

console.log(`places: ${SHAPE}${SHAPE === 'circle' ? 's' : ` shapes (${fences.reduce((n, f) => n + (f.shape ? f.shape.xy.length / 2 : 0), 0) / FENCES} positions each on average)`}`);
console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (other processes on this box skew wall-clock figures; CPU figures less so)`);
if (ONLY !== 'inprocess') await benchEngine();
if (ONLY !== 'engine') memoryPerPair(benchInProcess());
console.log(`\nload average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
