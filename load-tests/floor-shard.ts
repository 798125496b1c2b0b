// The floor server's shard thread (load-tests/floor-server.ts): the least the decide stage of this
// design does for a point. It keeps the world's circles in the service's own spatial index and,
// per user, the set of circles the user is inside, classified by the service's own zone rule (in
// at the radius, out beyond radius + max(20 m, 10 %), a poor fix moves nothing). Each message is
// one event-loop turn's points packed in one array (FloorBatch); the answer is each point's enters
// and leaves plus the callbacks they call for: the circle's callback triggers for that direction,
// where the user is on the circle's layer and the layer's rate limit lets them. No machines,
// dwell, one-time or windows: a lower bound of the work, not an engine.
import { parentPort, workerData } from 'node:worker_threads';
import { haversineM } from '../src/geo/distance.js';
import { FenceIndex } from '../src/geo/fence-index.js';
import { classifyZone } from '../src/geo/hysteresis.js';
import { nameThisThread } from '../workers/thread-name.js';
import type { World } from './world.js';

export interface FloorCircle {
  key: string;
  lat: number;
  lon: number;
  radius: number;
  /** The layer the circle's place is on: a user on another layer fires none of its callbacks. */
  layer?: string;
  /** Receiver paths of the callback triggers that fire on entering, and on leaving. */
  enter?: string[];
  leave?: string[];
  /** The layer's trigger_rate_limit, seconds: a trigger fires for a user at most once in it. */
  rateLimitS?: number;
}

/** What the floor is given of the harness's world. */
export interface FloorWorld {
  circles: FloorCircle[];
  /** Each user's layers, by user index (the default layer is every user's). */
  users: string[][];
}

/**
 * The floor's share of the harness's world: every place as a circle on its layer, with the paths of
 * its callback triggers that fire at once on every crossing (not dwell, one-time or windowed ones,
 * which fire less often in the service): each geofence of such a trigger is one path on its place.
 */
export function floorWorld(world: World): FloorWorld {
  const circles: FloorCircle[] = world.places.map((p) => {
    const c: FloorCircle = { key: p.key, lat: p.lat, lon: p.lng, radius: p.radius, layer: p.layer };
    if (world.layers[p.layer].rateLimitS > 0) c.rateLimitS = world.layers[p.layer].rateLimitS;
    return c;
  });
  for (const g of world.geofences) {
    const t = world.triggers[g.trigger]!;
    if (t.type !== 'callback' || t.afterS > 0 || t.oneTime || t.window || !t.path) continue;
    const c = circles[g.place]!;
    (t.on === 'enter' ? (c.enter ??= []) : (c.leave ??= [])).push(t.path);
  }
  return { circles, users: world.users.map((u) => [...u.layers]) };
}

/** The access token the harness sends for user `i`, and the floor server knows. */
export const floorToken = (i: number) => `floor-${i}`;

/**
 * One turn's points in one array, FIELDS numbers each: user index, latitude, longitude, accuracy
 * (metres), device time (ms). One typed array is half the cost of a message with one per column.
 */
export type FloorBatch = Float64Array;
export const FIELDS = 5;

/** A batch from points given as columns. */
export function packBatch(users: number[], lat: number[], lon: number[], acc: number[], at: number[]): FloorBatch {
  const b = new Float64Array(users.length * FIELDS);
  for (let i = 0; i < users.length; i++) {
    const o = i * FIELDS;
    b[o] = users[i]!;
    b[o + 1] = lat[i]!;
    b[o + 2] = lon[i]!;
    b[o + 3] = acc[i]!;
    b[o + 4] = at[i]!;
  }
  return b;
}

/** A callback a point calls for: the point's index in its batch, the receiver path, the direction. */
export type FloorFiring = [point: number, path: string, on: 'enter' | 'leave'];

export interface FloorAnswer {
  /** Enters plus leaves of each point, in the batch's order. */
  crossings: Int32Array;
  firings: FloorFiring[];
}

export class FloorState {
  private readonly index = new FenceIndex<FloorCircle>();
  private readonly inside = new Map<number, Set<FloorCircle>>();
  private readonly layers: Array<Set<string>>;
  /** Device time of each (user, trigger path)'s last firing, where a rate limit applies. */
  private readonly lastFired = new Map<string, number>();

  constructor(world: FloorWorld) {
    this.index.upsert(world.circles);
    this.layers = world.users.map((l) => new Set(['default', ...l]));
  }

  apply(batch: FloorBatch): FloorAnswer {
    const n = batch.length / FIELDS;
    const crossings = new Int32Array(n);
    const firings: FloorFiring[] = [];
    const candidates: FloorCircle[] = [];
    for (let i = 0; i < n; i++) {
      const o = i * FIELDS;
      const user = batch[o]!;
      const lat = batch[o + 1]!;
      const lon = batch[o + 2]!;
      const acc = batch[o + 3]!;
      const at = batch[o + 4]!;
      let was = this.inside.get(user);
      if (!was) this.inside.set(user, (was = new Set()));
      candidates.length = 0;
      this.index.query(lat, lon, candidates);
      // A circle the index did not return is out; the band and a poor fix keep what was.
      const now = new Set<FloorCircle>();
      for (const c of candidates) {
        const zone = classifyZone(haversineM(lat, lon, c.lat, c.lon), c.radius, acc);
        if (zone === 'in' || (zone !== 'out' && was.has(c))) now.add(c);
      }
      const onLayer = this.layers[user];
      const fire = (c: FloorCircle, paths: string[] | undefined, on: 'enter' | 'leave') => {
        if (!paths || (c.layer && !onLayer?.has(c.layer))) return;
        for (const path of paths) {
          if (c.rateLimitS) {
            const key = `${user}:${path}`;
            if (at - (this.lastFired.get(key) ?? -Infinity) < c.rateLimitS * 1000) continue;
            this.lastFired.set(key, at);
          }
          firings.push([i, path, on]);
        }
      };
      let changed = 0;
      for (const c of now) {
        if (was.has(c)) continue;
        changed++;
        fire(c, c.enter, 'enter');
      }
      for (const c of was) {
        if (now.has(c)) continue;
        changed++;
        fire(c, c.leave, 'leave');
      }
      this.inside.set(user, now);
      crossings[i] = changed;
    }
    return { crossings, firings };
  }
}

if (parentPort) {
  nameThisThread('floor-shard');
  const state = new FloorState(workerData.world as FloorWorld);
  const port = parentPort;
  port.on('message', (msg: { id: number; batch: FloorBatch }) => {
    port.postMessage({ id: msg.id, ...state.apply(msg.batch) });
  });
}
