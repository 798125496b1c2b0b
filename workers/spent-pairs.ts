// Spent one-time pairs (`firedOnce`) move no machine (machines/README.md), so a user crossing one
// the way its trigger fires would leave no trace. This spots such a crossing from the user's
// previous applied point and this one, and reports it as a gated firing (`one_time_spent`) for
// trigger/history. The pair stays spent. Only users holding a spent pair pay for it.
import { haversineM } from '../src/geo/distance.js';
import { classifyZone, type Hysteresis } from '../src/geo/hysteresis.js';
import type { Geofence, ShardOutput } from './protocol.js';
import type { UserSlot } from './user-slot.js';

/**
 * Called before the point at `at` becomes the user's last one (`u.lat`… still hold the previous
 * point). An enter trigger without dwell counts out → in, a leave trigger in → out; a dwell
 * trigger is left out (whether it would have fired depends on the rest of the visit).
 */
export function spentCrossings(
  u: UserSlot, fences: ReadonlyMap<string, Geofence>, at: number, lat: number, lon: number, acc: number, point: number, h: Hysteresis, out: ShardOutput,
): void {
  if (Number.isNaN(u.lat) || u.pairs === null) return;
  // Key order, as the shard's other loops: outcomes of one point do not depend on insertion order.
  const spent: string[] = [];
  for (const [key, rec] of u.pairs) if (rec.state === 'firedOnce' && at >= rec.since) spent.push(key);
  for (const key of spent.sort()) {
    const f = fences.get(key);
    if (!f || (f.triggerOn === 'enter' && f.triggerAfterS > 0) || !u.layers.includes(f.layerId)) continue;
    const before = classifyZone(haversineM(u.lat, u.lon, f.lat, f.lon), f.radius, u.acc, h);
    const now = classifyZone(haversineM(lat, lon, f.lat, f.lon), f.radius, acc, h);
    const crossed = f.triggerOn === 'enter' ? before === 'out' && now === 'in' : before === 'in' && now === 'out';
    if (!crossed) continue;
    out.effects.push({
      type: 'SUPPRESSED', reason: 'one_time_spent', userId: u.id, point,
      triggerId: f.triggerId, placeId: f.placeId, triggeredOn: f.triggerOn, delaySeconds: 0, at,
    });
  }
}
