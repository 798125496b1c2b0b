// Spent one-time pairs (`firedOnce`) move no machine (machines/README.md), so a user crossing one
// the way its trigger fires would leave no trace. This is the one detector of such crossings: it
// follows, per user, which spent pairs the user is inside of (`u.spentIn`, null for nearly
// everyone), so that out → band → in, or a run of unusable points, is still one entry. Entering
// again (an enter or dwell trigger) or leaving again (a leave trigger) is the firing the spent pair
// no longer makes: a SUPPRESSED effect `one_time_spent` for trigger/history and, when the shard
// records a timeline, its gated entry, from the same decision. The pair stays spent.
import { spentFacts, spentInside, type PairEvent, type PairRecord, type StepResult, type TimelineFacts, type Zone } from '../machines/index.js';
import { fenceMeasureM, fenceZone } from '../src/geo/fence-zone.js';
import type { Hysteresis } from '../src/geo/hysteresis.js';
import type { Geofence, ShardEffect, ShardOutput, SpentEffect } from './protocol.js';
import type { TimelineRecorder } from './shard-timeline.js';
import type { UserSlot } from './user-slot.js';

/** Keeps `u.spentIn` in step with a machine step of the pair `key` (always, timeline or not). */
export function trackSpentStep(u: UserSlot, key: string, before: PairRecord | undefined, ev: PairEvent, res: StepResult): void {
  if (res.record === before) return;
  if (spentInside(before, res, ev)) (u.spentIn ??= new Set()).add(key);
  else if (res.record?.state !== 'firedOnce') forget(u, key);
}

/**
 * After a load (this memory is not persisted): the spent pairs the user's last applied point puts
 * them inside of. A band or unusable last point does not tell; it counts the way that records no
 * firing the user did not make: inside for an enter or dwell trigger, outside for a leave trigger.
 * Without a last point (a replay starting `firedOnce`) the first in-point counts as an entry.
 */
export function seedSpentIn(u: UserSlot, fences: ReadonlyMap<string, Geofence>, h: Hysteresis): void {
  if (u.pairs === null || u.pairs.size === u.act.length || Number.isNaN(u.lat)) return;
  for (const [key, rec] of u.pairs) {
    const f = fences.get(key);
    if (rec.state !== 'firedOnce' || f === undefined || !u.layers.includes(f.layerId)) continue;
    const zone = fenceZone(f, fenceMeasureM(f, u.lat, u.lon, h), u.acc, h);
    if (f.triggerOn === 'enter' ? zone !== 'out' : zone === 'in') (u.spentIn ??= new Set()).add(key);
  }
}

/**
 * The current point (index `point` of the batch) for the spent pairs the user is inside of:
 * leaving one may be the firing of a leave trigger. A pair that is no longer spent, gone, or off
 * the user's layers is forgotten without an entry.
 */
export function spentLeaving(
  out: ShardOutput, u: UserSlot, fences: ReadonlyMap<string, Geofence>, h: Hysteresis,
  at: number, lat: number, lon: number, acc: number, point: number, recv: number, tl: TimelineRecorder | null,
): void {
  if (u.spentIn === null) return;
  // Key order, as the shard's other loops: outcomes of one point do not depend on insertion order.
  for (const key of u.spentIn.size === 1 ? u.spentIn : [...u.spentIn].sort()) {
    const f = fences.get(key);
    const rec = u.pairs?.get(key);
    if (f === undefined || rec?.state !== 'firedOnce' || !u.layers.includes(f.layerId)) {
      forget(u, key);
      continue;
    }
    if (at < rec.since) continue;
    const d = fenceMeasureM(f, lat, lon, h);
    spentZone(out, u, f, fenceZone(f, d, acc, h), d, at, point, recv, tl);
  }
}

/** The current point for a spent pair `rec` near it (`f` is on the user's layers): entering it may be a firing. */
export function spentNear(
  out: ShardOutput, u: UserSlot, f: Geofence, rec: PairRecord, h: Hysteresis,
  at: number, lat: number, lon: number, acc: number, point: number, recv: number, tl: TimelineRecorder | null,
): void {
  if (at < rec.since || u.spentIn?.has(f.key) === true) return;
  const d = fenceMeasureM(f, lat, lon, h);
  spentZone(out, u, f, fenceZone(f, d, acc, h), d, at, point, recv, tl);
}

/** The one decision: the user's zone against what the detector remembers, and what it records. */
function spentZone(
  out: ShardOutput, u: UserSlot, f: Geofence, zone: Zone, dist: number, at: number, point: number, recv: number, tl: TimelineRecorder | null,
): void {
  const inside = u.spentIn?.has(f.key) === true;
  if (zone === 'in' && !inside) (u.spentIn ??= new Set()).add(f.key);
  else if (zone === 'out' && inside) forget(u, f.key);
  else return; // band and unusable points change nothing: the visit goes on, or has not begun
  const facts = spentFacts(f, zone, at);
  if (facts === null) return;
  const e: ShardEffect = spentEffect(u, f, facts, point);
  if (!Number.isNaN(recv)) e.receivedAt = recv;
  out.effects.push(e);
  tl?.gated(out, u, f, facts, zone, dist);
}

function spentEffect(u: UserSlot, f: Geofence, facts: TimelineFacts, point: number): SpentEffect & { userId: string; point: number } {
  return {
    type: 'SUPPRESSED', reason: 'one_time_spent', userId: u.id, point,
    triggerId: f.triggerId, placeId: f.placeId, triggeredOn: f.triggerOn,
    delaySeconds: facts.event === 'dwell' ? f.triggerAfterS : 0, at: facts.at,
  };
}

function forget(u: UserSlot, key: string): void {
  if (u.spentIn !== null && u.spentIn.delete(key) && u.spentIn.size === 0) u.spentIn = null;
}
