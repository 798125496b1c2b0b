// Where location points are kept: each user's last location (always) and the history (when the
// application keeps it). The engine writes both once a batch went through the shards, a batch at
// a time; location/last, location/history, the groups, the inspector and engine seeding read them.
// Implemented on SQLite (sqlite/locations.ts) and MongoDB (mongodb/locations.ts).
import type { DateRange, LastPointSeed, LocationDoc, PointRow } from './documents.js';

export interface PointHistory {
  /**
   * Stores the points. A repeat of a stored point is dropped: the same user, device time and
   * position, or the same uuid sent by the phone (a batch sent again after a timeout).
   */
  add(points: readonly PointRow[]): Promise<void>;
  /** The user's newest `count` points within `range`, newest first (equal times: the later stored first). */
  newest(appId: string, userId: string, range: DateRange, count: number): Promise<LocationDoc[]>;
  /** The user's oldest `count` points within `range`, in time order (a replay's track). */
  oldest(appId: string, userId: string, range: DateRange, count: number): Promise<LocationDoc[]>;
  /** Removes these points of the user (ids as `_id` gave them); how many went. */
  remove(appId: string, userId: string, ids: readonly string[]): Promise<number>;
  removeUser(appId: string, userId: string): Promise<void>;
  removeForApp(appId: string): Promise<void>;
  /**
   * Retention: removes up to about `max` points dated (device time) before `cutoff`, the earliest
   * stored first; how many went (0: none left, as far as the store can tell cheaply).
   */
  removeDatedBefore(cutoff: number, max: number): Promise<number>;
}

export interface LastLocations {
  /**
   * Keeps each point as its user's last location, unless the stored one is newer or is the same
   * point (same time and position). One as old from elsewhere replaces it: the engine applies
   * points of equal time in arrival order (machines/README.md "Order and time"), so the later one
   * is the last. Several points of one user: the newest (the later of equal ones).
   */
  save(points: readonly PointRow[]): Promise<void>;
  of(appId: string, userId: string): Promise<LocationDoc | null>;
  /** The last locations of those of `userIds` that have one (the application's users only). */
  ofUsers(appId: string, userIds: readonly string[]): Promise<LocationDoc[]>;
  /** The application's users' last locations, by user id, at most `max`. */
  ofApp(appId: string, max: number): Promise<LocationDoc[]>;
  /** Every user's last point (engine seeding). */
  seeds(): Promise<LastPointSeed[]>;
  removeUser(appId: string, userId: string): Promise<void>;
  removeForApp(appId: string): Promise<void>;
}

/** The newest of `points` per user (the later of equal times): what `save` keeps of a batch. */
export function newestPerUser(points: readonly PointRow[]): PointRow[] {
  if (points.length === 1) return points as PointRow[];
  const newest = new Map<string, PointRow>();
  for (const p of points) {
    const n = newest.get(p.user_id);
    if (!n || p.date >= n.date) newest.set(p.user_id, p);
  }
  return [...newest.values()];
}

/** JSON text of a stored object, back as the object. */
export const parsed = (text: string | null): Record<string, unknown> | null => (text === null ? null : (JSON.parse(text) as Record<string, unknown>));
