// The floor server's shard thread (load-tests/floor-server.ts): the least the decide stage of this
// design does for a point. It keeps the world's circles in the service's own spatial index and,
// per user, the set of circles the user is inside; each message is one event-loop turn's points
// as columns (user, latitude, longitude), and the answer is how many enters and leaves each point
// made. No machines, no hysteresis, no dwell, no windows: a lower bound, not an engine.
import { parentPort, workerData } from 'node:worker_threads';
import { haversineM } from '../src/geo/distance.js';
import { FenceIndex } from '../src/geo/fence-index.js';
import { nameThisThread } from '../workers/thread-name.js';

export interface FloorCircle {
  key: string;
  lat: number;
  lon: number;
  radius: number;
}

/** The access token the harness sends for user `i`, and the floor server knows. */
export const floorToken = (i: number) => `floor-${i}`;

/** One turn's points: `users[i]` moved to (`lat[i]`, `lon[i]`). */
export interface FloorBatch {
  users: Int32Array;
  lat: Float64Array;
  lon: Float64Array;
}

/** Enters plus leaves of each point of a floor batch, in the batch's order. */
export function crossings(index: FenceIndex<FloorCircle>, inside: Map<number, Set<string>>, batch: FloorBatch): Int32Array {
  const out = new Int32Array(batch.users.length);
  const candidates: FloorCircle[] = [];
  for (let i = 0; i < batch.users.length; i++) {
    const user = batch.users[i]!;
    const lat = batch.lat[i]!;
    const lon = batch.lon[i]!;
    let was = inside.get(user);
    if (!was) inside.set(user, (was = new Set()));
    candidates.length = 0;
    index.query(lat, lon, candidates);
    const now = new Set<string>();
    for (const c of candidates) if (haversineM(lat, lon, c.lat, c.lon) <= c.radius) now.add(c.key);
    let changed = 0;
    for (const k of now) if (!was.has(k)) changed++;
    for (const k of was) if (!now.has(k)) changed++;
    inside.set(user, now);
    out[i] = changed;
  }
  return out;
}

if (parentPort) {
  nameThisThread('floor-shard');
  const index = new FenceIndex<FloorCircle>();
  index.upsert(workerData.circles as FloorCircle[]);
  const inside = new Map<number, Set<string>>();
  const port = parentPort;
  port.on('message', (msg: { id: number; batch: FloorBatch }) => {
    const out = crossings(index, inside, msg.batch);
    port.postMessage({ id: msg.id, crossings: out });
  });
}
