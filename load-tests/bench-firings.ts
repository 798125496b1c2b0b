// Benchmark of the firing → callback path alone: recordFirings on a fresh embedded store (ms per
// batch, µs per firing, group-commit turns per batch, main-thread CPU), then the dispatcher against
// a local HTTP receiver in a worker thread (callbacks/s when drained flat out, and enqueue → arrival
// latency at a steady rate). No engine, no HTTP API: the store and src/services only.
// Run: npx tsx load-tests/bench-firings.ts [--users N] [--rate N] [--seconds N] [--burst N] [--busy-ms N]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AuthContext } from '../src/auth/authenticate.js';
import { loadConfig } from '../src/config.js';
import { startDispatcher } from '../src/delivery/dispatcher.js';
import { recordFirings, type Firing } from '../src/delivery/firings.js';
import { buildCallbackPayload, callbackPayloadText } from '../src/delivery/payload.js';
import { outbox } from '../src/delivery/outbox.js';
import { createApplication } from '../src/services/applications.js';
import { createServiceContext, type ServiceContext } from '../src/services/context.js';
import { createTrigger } from '../src/services/triggers.js';
import { createAnonUser } from '../src/services/users.js';
import { GroupAppender } from '../src/store/group-commit.js';
import { openStore } from '../src/store/store.js';
import { threadCpuMs } from '../workers/shard-worker.js';
import { numberArg } from './bench-args.js';
import { startReceiver } from './bench-receiver.js';

const USERS = numberArg('users', 200);
const RATE = numberArg('rate', 280); // firings per second in the steady run
const SECONDS = numberArg('seconds', 10);
const BURST = numberArg('burst', 2_000); // callbacks enqueued at once for the throughput run
const BUSY_MS = numberArg('busy-ms', 2); // other work per event-loop turn in the busy-server row

// Group-commit turns: event-loop check phases in which at least one collection file was written.
let turns = 0;
let inTurn = false;
const proto = GroupAppender.prototype as unknown as { flush(): void };
const flush = proto.flush;
proto.flush = function (this: GroupAppender) {
  if (!inTurn) {
    turns++;
    inTurn = true;
    setImmediate(() => (inTurn = false));
  }
  flush.call(this);
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};
const f1 = (n: number) => n.toFixed(1);

// ---- setup through the services ------------------------------------------------------------------

async function setup(url: string) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bench-firings-'));
  const store = await openStore({ kind: 'embedded', dataDir });
  const ctx: ServiceContext = createServiceContext({
    store, config: { ...loadConfig({}), dataDir, logLevel: 'silent', callbackAllowPrivate: true },
  });
  const created = await createApplication(ctx, 'bench');
  const app = (await store.applications.findOne({ _id: created.application_id }))!;
  const trigger = (await createTrigger(ctx, app._id, app.default_layer_id, {
    type: 'callback', url, latitude: 45.52, longitude: -122.68, radius: 150,
  } as Parameters<typeof createTrigger>[3])).body as { trigger_id: string; place_id: string };
  const auth = { kind: 'client', app, secretVerified: true } as AuthContext;
  const users: string[] = [];
  for (let i = 0; i < USERS; i++) users.push((await createAnonUser(ctx, auth, { timezone: i % 2 ? 'America/New_York' : 'Asia/Kolkata' } as Parameters<typeof createAnonUser>[2])).user_id);
  let seq = 0;
  const firing = (): Firing => {
    const at = Date.now();
    const n = seq++;
    return {
      event_id: `bench_${n}`, app_id: app._id, user_id: users[n % users.length]!, trigger_id: trigger.trigger_id,
      place_id: trigger.place_id, layer_id: app.default_layer_id, triggered_on: 'enter', delay_s: 0, at,
      location: { date: at - 500, latitude: 45.5201, longitude: -122.6801, horizontal_accuracy: 10, raw: null },
    };
  };
  /**
   * µs per callback payload: built as an object and serialised (what trigger/run does), and as the
   * outbox's text from the parts kept per document (what recordFirings does; the documents are the
   * delivery runtime's frozen ones).
   */
  const payloadUs = async () => {
    const f = firing();
    const [user, trig, place, layer] = await Promise.all([
      store.users.get(app._id, f.user_id), store.triggers.get(app._id, f.trigger_id), store.places.get(app._id, f.place_id), store.layers.get(app._id, f.layer_id),
    ]);
    const input = {
      app, user: Object.freeze(user!), trigger: Object.freeze(trig!), place: Object.freeze(place!), layer: Object.freeze(layer!), bounds: false as const, ...f,
    };
    const time = (build: (at: number) => string) => {
      for (let i = 0; i < 2_000; i++) build(f.at + i);
      const s = performance.now();
      for (let i = 0; i < 20_000; i++) build(f.at + i);
      return ((performance.now() - s) * 1000) / 20_000;
    };
    return {
      object: time((at) => JSON.stringify(buildCallbackPayload({ ...input, at }))),
      text: time((at) => callbackPayloadText({ ...input, at })),
    };
  };
  return { ctx, dataDir, firing, payloadUs, close: async () => { await store.close(); await rm(dataDir, { recursive: true, force: true }); } };
}

// ---- recordFirings alone (no dispatcher running) ------------------------------------------------

/** Other work of a busy server: `ms` of CPU in every event-loop turn (each check phase). */
function busyLoop(ms: number): () => void {
  let on = true;
  const spin = () => {
    if (!on) return;
    const end = performance.now() + ms;
    while (performance.now() < end);
    setImmediate(spin);
  };
  setImmediate(spin);
  return () => void (on = false);
}

async function benchRecord() {
  const { ctx, firing, payloadUs, close } = await setup('http://127.0.0.1:9/never');
  const payload = await payloadUs();
  console.log(`callback payload: ${payload.object.toFixed(1)} µs built and serialised, ${payload.text.toFixed(1)} µs as text from cached parts`);
  console.log('recordFirings (callback trigger, no dispatcher):');
  console.log('  batch  ms/batch p50  ms/batch p99  µs/firing  turns/batch  main CPU µs/firing');
  for (const size of [1, 10, 50]) {
    const reps = size === 1 ? 300 : size === 10 ? 100 : 40;
    for (let i = 0; i < 10; i++) await recordFirings(ctx, Array.from({ length: size }, firing)); // warm-up
    const ms: number[] = [];
    const t0 = turns;
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < reps; i++) {
      const batch = Array.from({ length: size }, firing);
      const s = performance.now();
      await recordFirings(ctx, batch);
      ms.push(performance.now() - s);
    }
    const cpu = process.cpuUsage(cpu0);
    const total = ms.reduce((a, b) => a + b, 0);
    console.log(`  ${String(size).padStart(5)}  ${f1(pct(ms, 50)).padStart(12)}  ${f1(pct(ms, 99)).padStart(12)}  ${f1((total * 1000) / (reps * size)).padStart(9)}  ${f1((turns - t0) / reps).padStart(11)}  ${f1((cpu.user + cpu.system) / (reps * size)).padStart(17)}`);
  }
  // A busy server: every group-commit turn also waits for the other work of that turn.
  const stop = busyLoop(BUSY_MS);
  const ms: number[] = [];
  for (let i = 0; i < 40; i++) {
    const batch = Array.from({ length: 14 }, firing);
    const s = performance.now();
    await recordFirings(ctx, batch);
    ms.push(performance.now() - s);
  }
  stop();
  console.log(`  batch of 14 with ${BUSY_MS} ms of other work per event-loop turn: ms/batch p50 ${f1(pct(ms, 50))}  p99 ${f1(pct(ms, 99))}`);
  await close();
}

// ---- dispatcher against a local receiver --------------------------------------------------------

async function benchDispatch() {
  const rx = await startReceiver();
  const { ctx, firing, close } = await setup(rx.url);
  const enqueued = new Map<string, number>();
  const now = () => performance.timeOrigin + performance.now();
  const dispatcher = startDispatcher(ctx, {});

  // Flat out: BURST callbacks recorded in batches of 50 as fast as they go, until all arrived.
  const s = now();
  for (let i = 0; i < BURST; i += 50) {
    const batch = Array.from({ length: Math.min(50, BURST - i) }, firing);
    for (const f of batch) enqueued.set(f.event_id, now());
    await recordFirings(ctx, batch);
  }
  while (rx.arrived.size < BURST) await new Promise((r) => setTimeout(r, 5));
  const burstS = (now() - s) / 1000;
  console.log(`dispatcher, ${BURST} callbacks recorded in batches of 50 at once: ${Math.round(BURST / burstS)} callbacks/s (all arrived in ${burstS.toFixed(2)} s)`);
  while ((await outbox(ctx).countDocuments({ status: 'delivered' })) < BURST) await new Promise((r) => setTimeout(r, 20));

  // Steady: RATE firings/s in batches every 50 ms (as location batches arrive), latency to arrival.
  rx.arrived.clear();
  enqueued.clear();
  const perBatch = Math.max(1, Math.round(RATE / 20));
  const batches = SECONDS * 20;
  const recordMs: number[] = [];
  const cpu0 = threadCpuMs() ?? 0;
  const start = now();
  for (let b = 0; b < batches; b++) {
    const due = start + b * 50;
    const wait = due - now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const batch = Array.from({ length: perBatch }, firing);
    const t = now();
    for (const f of batch) enqueued.set(f.event_id, t);
    await recordFirings(ctx, batch);
    recordMs.push(now() - t);
  }
  const want = batches * perBatch;
  const deadline = now() + 30_000;
  while (rx.arrived.size < want && now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const cpuMs = (threadCpuMs() ?? 0) - cpu0;
  const elapsed = now() - start;
  const lat = [...enqueued].map(([id, t]) => (rx.arrived.get(id) ?? NaN) - t).filter(Number.isFinite);
  console.log(`dispatcher steady ${perBatch * 20}/s for ${SECONDS} s (batches of ${perBatch} every 50 ms): arrived ${lat.length}/${want}`);
  console.log(`  enqueue → arrival ms: p50 ${f1(pct(lat, 50))}  p90 ${f1(pct(lat, 90))}  p99 ${f1(pct(lat, 99))}  max ${f1(Math.max(...lat))}`);
  console.log(`  recordFirings ms/batch: p50 ${f1(pct(recordMs, 50))}  p99 ${f1(pct(recordMs, 99))}`);
  console.log(`  main-thread CPU: ${f1((cpuMs / elapsed) * 100)}% (${Math.round((cpuMs * 1000) / want)} µs per callback, recording + dispatch)`);
  await dispatcher.stop();
  await close();
  await rx.stop();
}

await benchRecord();
await benchDispatch();
