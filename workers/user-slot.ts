// One user of a shard: layers, timezone, the last applied point, the records of the pairs that are
// not outside, the rate-limit memory, and the nearby cache of geofences around the user.
import type { PairRecord } from '../machines/index.js';
import type { FenceEntry } from '../src/geo/fence-index.js';
import type { Geofence } from './protocol.js';

export interface UserSlot {
  id: string;
  layers: string[];
  tz: string;
  /** Device time of the last applied point; -Infinity before the first. */
  clock: number;
  /** Where that point was (NaN before the first): what a released one-time pair is judged by. */
  lat: number;
  lon: number;
  acc: number;
  /** Records of pairs that are not outside, by fence key; null while there are none. */
  pairs: Map<string, PairRecord> | null;
  /** Keys of the pairs that are inside or dwelling, sorted (firedOnce ones never move). */
  act: string[];
  /** Earliest pending dwell deadline of this user's pairs; Infinity when none. */
  nextDeadline: number;
  /** Last unsuppressed firing per trigger, for the layer's rate limit. */
  lastFired: Map<string, number> | null;
  /** Timeline only (shard-timeline.ts): the notes recorded in each pair's current episode, as bits. */
  noted: Map<string, number> | null;
  /** Spent one-time pairs the user is inside of (spent-pairs.ts); null while there are none. */
  spentIn: Set<string> | null;
  // Nearby cache: every geofence of the user's layers whose box meets this box, sorted by key.
  // Valid while `nearVersion` equals the shard's fence version; any point inside the box can only
  // be in geofences of this list (rbush returns every box intersecting the query box).
  nearVersion: number;
  nMinLat: number;
  nMaxLat: number;
  nMinLon: number;
  nMaxLon: number;
  near: FenceEntry<Geofence>[];
  /** Boxes of `near` as [minLat, maxLat, minLon, maxLon] runs: one sequential scan per point
   * (a plain array of doubles: V8 stores it unboxed, and small typed arrays are slower to make). */
  nearBox: number[];
}

export const EMPTY_NEAR: FenceEntry<Geofence>[] = [];
export const EMPTY_BOX: number[] = [];
const NO_KEYS: string[] = [];

export function newSlot(userId: string): UserSlot {
  return {
    id: userId,
    layers: [],
    tz: 'UTC',
    clock: -Infinity,
    lat: NaN,
    lon: NaN,
    acc: NaN,
    pairs: null,
    act: NO_KEYS,
    nextDeadline: Infinity,
    lastFired: null,
    noted: null,
    spentIn: null,
    nearVersion: -1,
    nMinLat: 0,
    nMaxLat: 0,
    nMinLon: 0,
    nMaxLon: 0,
    near: EMPTY_NEAR,
    nearBox: EMPTY_BOX,
  };
}

/** Rebuild the sorted list of active keys (key order makes same-point outcomes deterministic). */
export function refreshActive(u: UserSlot): void {
  if (u.pairs === null) {
    u.act = NO_KEYS;
    return;
  }
  const act: string[] = [];
  for (const [key, r] of u.pairs) if (r.state !== 'firedOnce') act.push(key);
  u.act = act.length === 0 ? NO_KEYS : act.sort();
}

export function splitKey(key: string): [triggerId: string, placeId: string] {
  const c = key.indexOf(':');
  return [key.slice(0, c), key.slice(c + 1)];
}
