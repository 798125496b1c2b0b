// Benchmark of the delivery path alone, on the embedded store: firings recorded the way the engine
// records them (recordFirings: one firings row each, written before the acknowledgement),
// then leased, signed, POSTed to a local receiver in another thread (receiver.ts) and marked
// delivered. Prints the CPU of this process per delivered callback (every thread: main and sender;
// the receiver's thread excluded) and of its main thread alone.
//   live:  batches of --batch firings, --rate callbacks a second, handed to the running loop as
//          the service does; measured from the first firing until the last callback arrives.
//   drain: --callbacks rows written with no loop running (a backlog: a receiver that was down),
//          then the loop started and timed until the last one arrives (the poll's path).
// Run: npx tsx bench/delivery.ts [--callbacks N] [--batch N] [--rate N] [--rounds N] [--mode live|drain|both]
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { recordFirings, type Firing } from '../src/delivery/firings.js';
import { createDelivery } from '../src/delivery/runtime.js';
import { createApplication } from '../src/services/applications.js';
import type { ServiceContext } from '../src/services/context.js';
import { buildServiceContext } from '../src/plugins/service-context.js';
import type { PlaceDoc, TriggerDoc, UserDoc } from '../src/store/documents.js';
import { newId } from '../src/store/ids.js';
import { openStore } from '../src/store/store.js';
import { threadCpuMs } from '../workers/shard-worker.js';
import { numberArg } from './args.js';
import { startReceiver, type BenchReceiver } from './receiver.js';

const CALLBACKS = numberArg('callbacks', 20_000);
const BATCH = numberArg('batch', 20);
const RATE = numberArg('rate', 5_000);
const ROUNDS = numberArg('rounds', 1);
const USERS = 200;
const modeArg = process.argv.indexOf('--mode');
const MODE = modeArg > 0 ? process.argv[modeArg + 1]! : 'both';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU ms of this process's threads by name (Linux), to see where the time outside the main thread goes. */
function threadsByName(): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * 10);
      } catch {
        // ended meanwhile
      }
    }
  } catch {
    // not Linux
  }
  return out;
}

interface World {
  ctx: ServiceContext;
  dir: string;
  firing: (i: number) => Firing;
}

async function world(receiverUrl: string): Promise<World> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-delivery-'));
  const store = await openStore({ kind: 'embedded', dataDir: dir });
  const config = { ...loadConfig({}), dataDir: dir, logLevel: 'silent' as const, callbackAllowPrivate: true };
  const { ctx } = buildServiceContext({ store, config, delivery: { dispatcher: false } });
  const created = await createApplication(ctx, 'bench delivery');
  const app = (await store.applications.get(created.application_id))!;
  const layerId = app.default_layer_id;
  const now = Date.now();
  const place: PlaceDoc = {
    _id: newId(), app_id: app._id, layer_id: layerId, name: 'Powells', description: 'Books', latitude: 45.5165, longitude: -122.6764,
    radius: 200, extra: { shelf: 3 }, created_at: now,
  };
  await store.places.insert(place);
  const triggers: TriggerDoc[] = (['enter', 'leave'] as const).map((on) => ({
    _id: newId(), app_id: app._id, place_id: place._id, layer_id: layerId, on_layer: false, trigger_on: on, trigger_after: 0,
    one_time: 0, text: '', url: `${receiverUrl}/${on}`, extra: {}, type: 'callback', created_at: now,
  }) as TriggerDoc);
  for (const t of triggers) await store.triggers.insert(t);
  const users: UserDoc[] = [];
  for (let i = 0; i < USERS; i++) {
    const id = newId();
    const u = {
      _id: id, app_id: app._id, username: `u_${id}`, uniq_username: `${app._id}:u_${id}`, name: 'Ada', display_name: 'Ada L', bio: '',
      website: '', timezone: 'UTC', profile_image: '', phone: '', twitter: '', facebook: '', is_anonymous: 0, has_custom_username: 1,
      public_location: 0, public_geonotes: 1, public_geonote_email: 0, extra: { plan: 'gold' }, devices: { apns_dev: [], apns_live: [], c2dm: [], gcm: [] },
      created_at: now,
    } as UserDoc;
    await store.users.insert(u);
    users.push(u);
  }
  const run = now.toString(36);
  return {
    ctx, dir,
    firing: (i) => {
      const t = triggers[i % 2]!;
      const at = Date.now();
      return {
        event_id: `evt_${run}_${i}`, app_id: app._id, user_id: users[i % USERS]!._id, trigger_id: t._id, place_id: place._id, layer_id: layerId,
        triggered_on: t.trigger_on as 'enter' | 'leave', delay_s: 0, at, received_at: at,
        location: { date: at - 1000, latitude: 45.5166, longitude: -122.6765, horizontal_accuracy: 12, speed: 1.5, raw: { battery: 80 } },
      };
    },
  };
}

function startLoop(w: World) {
  const rt = createDelivery({ store: w.ctx.store, config: w.ctx.config, changes: w.ctx.changes, now: Date.now, metrics: w.ctx.metrics }, {
    concurrency: w.ctx.config.callbackConcurrency, endpointConcurrency: w.ctx.config.callbackEndpointConcurrency,
  });
  w.ctx.delivery = rt;
  rt.start();
  return rt;
}

async function waitFor(receiver: BenchReceiver, n: number, ids: string[], timeoutMs = 600_000) {
  const end = Date.now() + timeoutMs;
  while (receiver.arrived.size < n) {
    if (Date.now() > end) throw new Error(`only ${receiver.arrived.size} of ${n} callbacks arrived`);
    await sleep(5);
  }
  let last = 0;
  for (const id of ids) last = Math.max(last, receiver.arrived.get(id) ?? 0);
  return last;
}

interface Figures {
  mode: string;
  callbacks: number;
  seconds: number;
  perS: number;
  cpuUs: number;
  mainUs: number;
  p50Ms?: number;
  p99Ms?: number;
  threads: string;
}

async function measure(mode: 'live' | 'drain'): Promise<Figures> {
  const receiver = await startReceiver();
  const w = await world(receiver.url);
  const ids: string[] = [];
  let threads0 = new Map<string, number>();
  const sent = new Map<string, number>();
  try {
    let rt;
    let cpu0: NodeJS.CpuUsage;
    let main0: number;
    let recv0: number;
    let t0: number;
    if (mode === 'drain') {
      for (let i = 0; i < CALLBACKS; i += BATCH) {
        const batch = Array.from({ length: Math.min(BATCH, CALLBACKS - i) }, (_, k) => w.firing(i + k));
        await recordFirings(w.ctx.delivery, batch);
        for (const f of batch) ids.push(f.event_id);
      }
      cpu0 = process.cpuUsage();
      main0 = threadCpuMs() ?? NaN;
      recv0 = receiver.cpuMs();
      threads0 = threadsByName();
      t0 = performance.now();
      rt = startLoop(w);
    } else {
      rt = startLoop(w);
      cpu0 = process.cpuUsage();
      main0 = threadCpuMs() ?? NaN;
      recv0 = receiver.cpuMs();
      threads0 = threadsByName();
      t0 = performance.now();
      // Batches every 10 ms at the rate asked for; each awaited like an acknowledged request.
      const perTick = Math.max(1, Math.round(RATE / 100));
      const inflight = new Set<Promise<unknown>>();
      let i = 0;
      const start = performance.now();
      while (i < CALLBACKS) {
        const due = Math.min(CALLBACKS, Math.round(((performance.now() - start) / 1000) * RATE) + perTick);
        while (i < due) {
          const batch = Array.from({ length: Math.min(BATCH, due - i) }, (_, k) => w.firing(i + k));
          i += batch.length;
          const at = Date.now();
          for (const f of batch) {
            ids.push(f.event_id);
            sent.set(f.event_id, at);
          }
          const p = recordFirings(w.ctx.delivery, batch).finally(() => inflight.delete(p));
          inflight.add(p);
        }
        await sleep(10);
      }
      await Promise.all(inflight);
    }
    const last = await waitFor(receiver, CALLBACKS, ids);
    const cpu = process.cpuUsage(cpu0);
    // Every report of the receiver is in by now: the last arrival came with one.
    const recvUs = (receiver.cpuMs() - recv0) * 1000;
    const threads = [...threadsByName()].map(([k, v]) => [k, v - (threads0.get(k) ?? 0)] as const).filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${Math.round((v * 1000) / CALLBACKS)}`).join(', ');
    const mainMs = (threadCpuMs() ?? NaN) - main0;
    const seconds = Math.max(0.001, (last - (performance.timeOrigin + t0)) / 1000);
    await rt.close();
    const lat = mode === 'live' ? ids.map((id) => receiver.arrived.get(id)! - sent.get(id)!).sort((a, b) => a - b) : [];
    return {
      mode, callbacks: CALLBACKS, seconds: Math.round(seconds * 10) / 10, perS: Math.round(CALLBACKS / seconds),
      cpuUs: Math.round((cpu.user + cpu.system - recvUs) / CALLBACKS), mainUs: Math.round((mainMs * 1000) / CALLBACKS),
      threads,
      ...(lat.length ? { p50Ms: lat[Math.floor(lat.length * 0.5)], p99Ms: lat[Math.floor(lat.length * 0.99)] } : {}),
    };
  } finally {
    await w.ctx.store.close();
    await receiver.stop();
    await rm(w.dir, { recursive: true, force: true });
  }
}

const modes: Array<'live' | 'drain'> = MODE === 'both' ? ['live', 'drain'] : [MODE as 'live' | 'drain'];
for (let round = 1; round <= ROUNDS; round++) {
  for (const mode of modes) {
    const f = await measure(mode);
    process.stdout.write(
      `${f.mode}: ${f.callbacks} callbacks in ${f.seconds} s (${f.perS}/s); CPU per callback ${f.cpuUs} µs (main thread ${f.mainUs})` +
        `${f.p50Ms !== undefined ? `; latency p50 ${Math.round(f.p50Ms)} ms, p99 ${Math.round(f.p99Ms!)} ms` : ''}\n  µs per callback by thread (the receiver's included): ${f.threads}\n`,
    );
  }
}
