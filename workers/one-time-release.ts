// one_time went from 1 to 0 (machines/README.md "Turning one_time off"): the trigger recurs for
// everyone from now on, so its `firedOnce` pairs leave that state, without firing. Where the user's
// last applied point puts them decides: `in` is a visit under way (`inside`, no dwell deadline),
// `out` is outside; a band, unusable or missing point is whichever of the two cannot fire before
// the user is seen crossing: `inside` for an enter trigger (it fires on the next entry, never for
// the visit that already fired), outside for a leave trigger (it fires on leaving after the next
// entry, never for a visit no point showed).
import { HISTORY_LIMIT, type PairRecord, type Transition } from '../machines/index.js';
import { haversineM } from '../src/geo/distance.js';
import { classifyZone, type Hysteresis } from '../src/geo/hysteresis.js';
import type { Geofence, ShardOutput } from './protocol.js';
import { refreshActive, type UserSlot } from './user-slot.js';

export function releaseSpent(
  users: Iterable<UserSlot>,
  fences: ReadonlyMap<string, Geofence>,
  h: Hysteresis,
  keys: ReadonlySet<string>,
): ShardOutput {
  const out: ShardOutput = { effects: [], changes: [] };
  for (const u of users) {
    if (u.pairs === null) continue;
    const spent: Array<[string, PairRecord]> = [];
    for (const [key, rec] of u.pairs) if (rec.state === 'firedOnce' && keys.has(key)) spent.push([key, rec]);
    for (const [key, rec] of spent) {
      const f = fences.get(key)!;
      const zone = classifyZone(haversineM(u.lat, u.lon, f.lat, f.lon), f.radius, u.acc, h);
      // A user no longer on the trigger's layer is outside it (no leave may fire for them).
      const inside = u.layers.includes(f.layerId) && (zone === 'in' || (zone !== 'out' && f.triggerOn === 'enter'));
      // Machine time: the user's last point (or the firing, if a dwell tick came after it).
      const at = Math.max(rec.since, u.clock);
      const transition: Transition = { from: 'firedOnce', to: inside ? 'inside' : 'outside', at, reason: 'one_time_off' };
      let next: PairRecord | null = null;
      if (inside) {
        // Inside as of `at`: the spent record's entry may be a visit the user has left since.
        next = { state: 'inside', since: at, enteredAt: at, history: [...rec.history.slice(1 - HISTORY_LIMIT), transition] };
        u.pairs.set(key, next);
      } else {
        u.pairs.delete(key);
      }
      out.changes.push({ userId: u.id, triggerId: f.triggerId, placeId: f.placeId, record: next, transition });
    }
    if (spent.length === 0) continue;
    if (u.pairs.size === 0) u.pairs = null;
    refreshActive(u);
  }
  return out;
}
