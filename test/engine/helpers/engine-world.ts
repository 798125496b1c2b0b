// A small world for the Engine tests (engine.test.ts in-process, engine-threads.e2e.test.ts with
// Piscina threads): eight geofences on a line, twelve users walking it, and a host store.
import { readdirSync, readFileSync } from 'node:fs';
import { destinationPoint } from '../../../src/geo/distance.js';
import { Engine, type ApplyResult, type EngineOptions } from '../../../src/engine/engine.js';
import { fenceKey, type Geofence, type PointInput, type RecordSeed, type ShardSeed, type UserSeed } from '../../../workers/protocol.js';

export const S = 1000;
export const C = { lat: 45.52, lon: -122.68 };

export function fence(triggerId: string, placeId: string, over: Partial<Geofence> = {}): Geofence {
  return {
    key: fenceKey(triggerId, placeId),
    triggerId,
    placeId,
    layerId: 'L',
    lat: C.lat,
    lon: C.lon,
    radius: 100,
    triggerOn: 'enter',
    triggerAfterS: 0,
    oneTime: false,
    rateLimitS: 0,
    window: null,
    ...over,
  };
}

/** Places on a line every 400 m east of C, alternating enter / leave / dwell / one-time triggers. */
export const FENCES: Geofence[] = Array.from({ length: 8 }, (_, i) => {
  const c = destinationPoint(C.lat, C.lon, 90, i * 400);
  const kind = i % 4;
  return fence(`t${i}`, `p${i}`, {
    lat: c.lat,
    lon: c.lon,
    triggerOn: kind === 1 ? 'leave' : 'enter',
    triggerAfterS: kind === 2 ? 30 : 0,
    oneTime: kind === 3,
  });
});
export const USERS: UserSeed[] = Array.from({ length: 12 }, (_, i) => ({ userId: `user-${i}`, layers: ['L'], timezone: 'UTC' }));

/** Each user walks east and back at its own pace; one point every 5 s per user. */
export function walk(step: number): PointInput[] {
  return USERS.map((u, i) => {
    const speed = 8 + i; // m/s
    const x = (step * 5 * speed) % 6000;
    const d = x < 3000 ? x : 6000 - x;
    const p = destinationPoint(C.lat, C.lon, 90, d);
    return { userId: u.userId, at: 1_000_000 + step * 5 * S, lat: p.lat, lon: p.lon, acc: 10 };
  });
}

/** The host's store, as far as the engine is concerned. */
export class HostStore {
  records = new Map<string, RecordSeed>();
  lastFired = new Map<string, { userId: string; triggerId: string; at: number }>();
  fired: string[] = [];
  persist(r: ApplyResult): void {
    for (const c of r.changes) {
      const k = `${c.userId}|${c.triggerId}|${c.placeId}`;
      if (c.record === null) this.records.delete(k);
      else this.records.set(k, { userId: c.userId, triggerId: c.triggerId, placeId: c.placeId, record: c.record });
    }
    for (const e of r.effects) {
      if (e.type !== 'FIRE') continue;
      this.fired.push(`${e.userId}|${e.triggerId}|${e.placeId}|${e.triggeredOn}|${e.at}`);
      this.lastFired.set(`${e.userId}|${e.triggerId}`, { userId: e.userId, triggerId: e.triggerId, at: e.at });
    }
  }
  seed(engine: Engine | null, shard?: number): ShardSeed {
    const mine = <T extends { userId: string }>(xs: Iterable<T>) => [...xs].filter((x) => engine === null || shard === undefined || engine.shardOf(x.userId) === shard);
    return { users: mine(USERS), records: mine(this.records.values()), lastFired: mine(this.lastFired.values()) };
  }
}

/** The names of this process's threads (Linux). */
export function threadNames(): string[] {
  const names: string[] = [];
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      names.push(readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim());
    } catch {
      // ended meanwhile
    }
  }
  return names;
}

/** Engines started by a test, closed after it. */
export const engines: Engine[] = [];
export async function startEngine(opts: EngineOptions, store: HostStore): Promise<Engine> {
  const e: Engine = new Engine({ ...opts, reseed: opts.reseed ?? ((i: number): ShardSeed => store.seed(e, i)) });
  engines.push(e);
  await e.start({ fences: FENCES, ...store.seed(null) });
  return e;
}

export async function drive(e: Engine, store: HostStore, from: number, to: number, each?: (step: number) => Promise<void>): Promise<void> {
  for (let step = from; step < to; step++) {
    store.persist(await e.applyPoints(walk(step)));
    store.persist(await e.tick(1_000_000 + step * 5 * S));
    if (each) await each(step);
  }
}

export function byKey(a: RecordSeed, b: RecordSeed): number {
  const ka = `${a.userId}|${a.triggerId}|${a.placeId}`;
  const kb = `${b.userId}|${b.triggerId}|${b.placeId}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
