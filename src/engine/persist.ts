// Persisting what the shards returned, in the one order that survives a crash: firings first
// (idempotent by event id), then visits, machine records and timeline entries (one group of
// writes), then the points themselves (history, last location). A location update is answered only after its batch went through all of that.
import { randomUUID } from 'node:crypto';
import type { GatedFiring } from '../schemas/firing.js';
import type { LocationPoint } from '../schemas/location-points.js';
import type { LocationDoc } from '../store/documents.js';
import { addHistory, saveLastLocations } from '../store/locations.js';
import { locatingRow, type BodiesOutput, type PointBatch, type RecordChange } from '../../workers/protocol.js';
import type { ApplyResult, EngineEffect } from './engine.js';
import type { BatchPoints, EngineFiring, FiringLocation, HostState, Pending } from './host-state.js';
import type { LastPoint } from './state-store.js';
import { eventId } from './timeline.js';

export { eventId };

/** Firings first (idempotent by event id), then visits, then records: a crash in between replays safely. */
export async function persistResult(s: HostState, res: ApplyResult, points: BatchPoints): Promise<void> {
  if (res.effects.length === 0 && res.changes.length === 0 && res.timeline === undefined) return;
  const firings: EngineFiring[] = [];
  const gated: GatedFiring[] = [];
  const visits = new Map<string, { appId: string; placeId: string }>();
  for (const e of res.effects) {
    const appId = s.users.get(e.userId)?.appId;
    if (!appId) continue;
    if (e.type === 'FIRE') {
      firings.push({
        event_id: eventId(e.userId, e.triggerId, e.placeId, e.triggeredOn, e.at),
        app_id: appId, user_id: e.userId, trigger_id: e.triggerId, place_id: e.placeId,
        layer_id: s.fences.get(`${e.triggerId}:${e.placeId}`)?.layerId ?? '',
        triggered_on: e.triggeredOn, delay_s: e.delaySeconds, at: e.at,
        location: await locationOf(s, e, points),
      });
    } else if (e.type === 'SUPPRESSED') {
      // Gated: a marked trigger/history row in the same write as the firings, nothing sent.
      gated.push({
        event_id: `${eventId(e.userId, e.triggerId, e.placeId, e.triggeredOn, e.at)}:gated`,
        app_id: appId, user_id: e.userId, trigger_id: e.triggerId, place_id: e.placeId,
        layer_id: s.fences.get(`${e.triggerId}:${e.placeId}`)?.layerId ?? '',
        triggered_on: e.triggeredOn, delay_s: e.delaySeconds, at: e.at, gate: e.reason,
      });
    } else if (e.type === 'VISIT') {
      visits.set(`${e.userId}:${e.placeId}:${e.at}`, { appId, placeId: e.placeId });
    }
  }
  // Each user's firings in the engine's order; users side by side (each write waits for a
  // group-commit turn, so one chain of them made a batch's persist as long as all its firings).
  if (firings.length || gated.length) await s.ports.recordFirings(firings, gated);
  await countVisits(s, visits.values());
  const moving = pointsOfMovedUsers(points.batch, res.changes);
  const appOf = (u: string) => s.users.get(u)?.appId;
  // The timeline in the same turn as the records: the embedded store commits them together.
  const timeline = res.timeline !== undefined && s.timeline !== null ? s.timeline.docs(res.timeline, appOf) : [];
  await Promise.all([
    s.states.apply(appOf, res.changes, (c) => lastPointOf(c, points.batch, moving), s.ctx.now()),
    timeline.length > 0 ? s.timeline!.write(timeline) : undefined,
  ]);
}

/** A batch's persist: the engine's results, then the points themselves, then the newest points. */
export async function persistBatch(s: HostState, out: BodiesOutput, requests: readonly Pending[]): Promise<void> {
  const points: BatchPoints = { batch: out.batch, full: new Map(out.full) };
  requests.forEach((p, i) => {
    const r = out.results[i]!;
    if ('points' in p.input && !('error' in r)) p.input.points.forEach((q, j) => points.full.set(r.first + j, q));
  });
  await persistResult(s, out, points);
  // After the records: the last location tells a restarted engine which points were applied.
  const history: LocationDoc[] = [];
  const lasts: LocationDoc[] = [];
  requests.forEach((p, i) => {
    const r = out.results[i]!;
    if ('error' in r) return;
    // Every point of a history-keeping application's request is here whole, else the newest.
    const stored = p.app.store_history
      ? s.ports.storedPoints(p.app, p.user, rowsOf(points.full, r.first, r.count), r.newest - r.first, p.now)
      : s.ports.storedPoints(p.app, p.user, [points.full.get(r.newest)!], 0, p.now);
    for (const d of stored.history) history.push(d);
    lasts.push(stored.last);
  });
  await Promise.all([addHistory(s.ctx.store, history), saveLastLocations(s.ctx.store, lasts)]);
  // Only now: a dwell fired while this batch was applied must not be located at a later point.
  const b = out.batch;
  const newest = new Map<string, number>();
  for (let k = 0; k < b.at.length; k++) {
    const userId = b.users[b.user[k]!]!;
    const n = newest.get(userId);
    if (n === undefined || b.at[n]! <= b.at[k]!) newest.set(userId, k);
  }
  for (const [userId, k] of newest) {
    const known = s.lastPoints.get(userId);
    // Each user's newest row is the newest of one of its requests: here whole.
    if (!known || known.date <= b.at[k]!) s.lastPoints.set(userId, firingPoint(points.full.get(k)!));
  }
}

/** One `$inc` per place with its visits of the batch, all written together. */
async function countVisits(s: HostState, visits: Iterable<{ appId: string; placeId: string }>): Promise<void> {
  const perPlace = new Map<string, { appId: string; n: number }>();
  for (const v of visits) {
    const c = perPlace.get(v.placeId);
    if (c) c.n++;
    else perPlace.set(v.placeId, { appId: v.appId, n: 1 });
  }
  await Promise.all([...perPlace].map(([placeId, c]) => s.ctx.store.places.addVisits(c.appId, placeId, c.n)));
}

/**
 * The point behind a firing: the one that caused it, or for a dwell deadline (a tick, also one
 * reached inside a batch) the user's newest point at or before the firing time, which is the
 * last point that kept the user inside, never a later one that may already be far away.
 */
async function locationOf(s: HostState, e: EngineEffect, points: BatchPoints): Promise<FiringLocation> {
  const cause = e.point !== undefined ? points.full.get(e.point) : undefined;
  if (cause) return firingPoint(cause);
  const applied = s.lastPoints.get(e.userId);
  // The shard sent this row whole too (read-bodies.ts).
  const row = locatingRow(points.batch, e.userId, e.at);
  const best = row >= 0 ? points.full.get(row) : undefined;
  if (best && !(applied && applied.date <= e.at && applied.date >= best.at)) return firingPoint(best);
  if (applied) return applied;
  const last = await s.ctx.store.collection<LocationDoc>('last_locations').findOne({ _id: e.userId });
  if (last) return { date: last.date, latitude: last.latitude, longitude: last.longitude, horizontal_accuracy: last.horizontal_accuracy, raw: last.raw, uuid: last.uuid };
  return { date: e.at, latitude: 0, longitude: 0 };
}

/** A point as a firing's `location`; a point that is not stored gets its uuid here, once. */
function firingPoint(p: LocationPoint): FiringLocation {
  p.uuid ??= randomUUID();
  return {
    date: p.at, latitude: p.latitude, longitude: p.longitude, horizontal_accuracy: p.accuracy,
    speed: p.speed ?? null, altitude: p.altitude ?? null, heading: p.heading ?? null, vertical_accuracy: p.vertical_accuracy ?? null,
    raw: p.raw, uuid: p.uuid,
  };
}

/** For each user whose record a point moved, the indexes of the user's points in the batch. */
function pointsOfMovedUsers(batch: PointBatch, changes: readonly RecordChange[]): Map<string, number[]> {
  const byUser = new Map<string, number[]>();
  for (const c of changes) if (c.record?.lastPointAt !== undefined && !byUser.has(c.userId)) byUser.set(c.userId, []);
  if (byUser.size === 0) return byUser;
  for (let i = 0; i < batch.at.length; i++) byUser.get(batch.users[batch.user[i]!]!)?.push(i);
  return byUser;
}

/** Rows first … first + count − 1 of the whole points. */
function rowsOf(full: ReadonlyMap<number, LocationPoint>, first: number, count: number): LocationPoint[] {
  const out: LocationPoint[] = [];
  for (let k = first; k < first + count; k++) out.push(full.get(k)!);
  return out;
}

/** The point that moved the pair (its record's lastPointAt), for the inspector. */
function lastPointOf(c: RecordChange, batch: PointBatch, byUser: ReadonlyMap<string, number[]>): LastPoint | undefined {
  const at = c.record?.lastPointAt;
  const mine = byUser.get(c.userId);
  if (at === undefined || !mine) return undefined;
  // The last of the user's points with that time (as a later duplicate would have been applied last).
  for (let j = mine.length - 1; j >= 0; j--) {
    const k = mine[j]!;
    if (batch.at[k] === at) return { date: at, latitude: batch.lat[k]!, longitude: batch.lon[k]!, horizontal_accuracy: batch.acc[k]! };
  }
  return undefined;
}
