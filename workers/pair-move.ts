// One pair through the machine (`step`, which runs it only when something moves), and the result
// accounted for in the user's slot and the shard's output.
import { step, type GateLookup, type PairEvent, type PairRecord, type StepResult } from '../machines/index.js';
import { windowGate } from '../src/geo/time-window.js';
import { hasVisit } from './batch-order.js';
import type { Geofence, RecordChange, ShardEffect, ShardOutput } from './protocol.js';
import { refreshActive, type UserSlot } from './user-slot.js';

/** Where a step happens, for what it hands back (protocol.ts RecordChange.row, ShardEffect.loc and receivedAt); -1 and NaN: none. */
export interface StepSite {
  /** The batch row of the point moving the pair. */
  row: number;
  /** The batch row that locates a firing no point causes. */
  loc: number;
  /** When the service received the point or applied the tick. */
  recv: number;
}

export const NO_SITE: StepSite = Object.freeze({ row: -1, loc: -1, recv: NaN });

/**
 * Step the pair of `f` for user `u` and record what came of it: the record (and the user's active
 * keys), the change, the effects (one visit per place and point). Returns the step's result; a
 * dwell deadline was set or dropped when `movedDeadline` says so, and the caller keeps its
 * deadline set in step.
 */
export function movePair(
  u: UserSlot,
  f: Geofence,
  rec: PairRecord | undefined,
  ev: PairEvent,
  point: number | undefined,
  effectsFrom: number,
  out: ShardOutput,
  site: StepSite = NO_SITE,
): StepResult {
  const res = step(rec, f, ev, gateFor(u));
  const next = res.record;
  if (next !== rec) {
    if (next === undefined) {
      u.pairs!.delete(f.key);
      if (u.pairs!.size === 0) u.pairs = null;
    } else {
      (u.pairs ??= new Map()).set(f.key, next);
    }
    const wasActive = rec !== undefined && rec.state !== 'firedOnce';
    const isActive = next !== undefined && next.state !== 'firedOnce';
    if (wasActive !== isActive) refreshActive(u);
    const change: RecordChange = { userId: u.id, triggerId: f.triggerId, placeId: f.placeId, record: next ?? null };
    if (res.transition) change.transition = res.transition;
    if (site.row >= 0) change.row = site.row;
    out.changes.push(change);
  }
  for (const e of res.effects) {
    if (e.type === 'FIRE') (u.lastFired ??= new Map()).set(e.triggerId, e.at);
    // One visit per place and point, however many triggers the place has.
    if (e.type === 'VISIT' && hasVisit(out.effects, effectsFrom, u.id, e.placeId, e.at)) continue;
    // The effect's fields after the new ones: a spread first, then fields, costs ~1 µs a field in
    // V8 11 (docs/architecture.md, Conventions).
    const se: ShardEffect = point === undefined ? { userId: u.id, ...e } : { userId: u.id, point, ...e };
    if (e.type !== 'VISIT') {
      if (point === undefined && site.loc >= 0) se.loc = site.loc;
      if (!Number.isNaN(site.recv)) se.receivedAt = site.recv;
    }
    out.effects.push(se);
  }
  return res;
}

/** Whether a step set or dropped a dwell deadline. */
export function movedDeadline(rec: PairRecord | undefined, res: StepResult): boolean {
  return res.record !== rec && (rec?.deadline !== undefined || res.record?.deadline !== undefined);
}

/** Gate inputs at a firing time: the geofence's windows in the user's timezone, the user's last firing. */
function gateFor(u: UserSlot): GateLookup {
  return (rule, at) => ({
    window: windowGate((rule as Geofence).window, at, u.tz),
    lastFiredAt: u.lastFired?.get(rule.triggerId) ?? null,
  });
}
