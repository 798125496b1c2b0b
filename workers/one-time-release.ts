// one_time went from 1 to 0 (machines/README.md "Turning one_time off"): the trigger recurs for
// everyone from now on, so each of its `firedOnce` pairs is sent a RELEASE. The machine decides
// where the pair goes; the shard tells it what only the shard knows: the zone of the user's last
// applied point for that geofence, and whether the user is still on the trigger's layer.
import type { PairRecord, ReleaseEvent } from '../machines/index.js';
import { fenceMeasureM, fenceZone } from '../src/geo/fence-zone.js';
import type { Hysteresis } from '../src/geo/hysteresis.js';
import type { Geofence } from './protocol.js';
import type { UserSlot } from './user-slot.js';

export function releaseEvent(u: UserSlot, f: Geofence, rec: PairRecord, h: Hysteresis): ReleaseEvent {
  const zone = Number.isNaN(u.lat) ? null : fenceZone(f, fenceMeasureM(f, u.lat, u.lon, h), u.acc, h);
  return { type: 'RELEASE', at: machineTime(u, rec), zone, onLayer: u.layers.includes(f.layerId) };
}

/** The time of an event the host sends a pair: the user's last point, or the pair's `since` if later (a dwell tick). */
export function machineTime(u: UserSlot, rec: PairRecord): number {
  return Math.max(rec.since, u.clock);
}
