// The machine inspector: for developers asking "why did (or didn't) this trigger fire for this
// user?". It shows each (user, trigger, place) machine's state, since when, the point that last
// moved it and its recent transitions (with the gate that stopped a firing, if one did); for a pair
// that is outside (no machine), it explains from the user's last location where the user is
// relative to the place: distance, accuracy, and the zone the hysteresis rule gives.
import { haversineM } from '../geo/distance.js';
import { classifyZone, leaveMarginM, maxAccuracyM } from '../geo/hysteresis.js';
import { notFound } from '../errors.js';
import type { LocationDoc, MachineStateDoc, PlaceDoc, TriggerDoc, UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { isoDate, unixSeconds } from '../schemas/dates.js';
import { requestTimeZone } from './request-zone.js';

const stamp = (at: number | undefined, tz: string) => (at === undefined ? null : { date: isoDate(at, tz), date_ts: unixSeconds(at) });

function machineView(s: MachineStateDoc, tz: string) {
  const r = s.record;
  return {
    user_id: s.user_id,
    trigger_id: s.trigger_id,
    place_id: s.place_id,
    state: s.state,
    since: stamp(r.since, tz),
    entered_at: stamp(r.enteredAt, tz),
    dwell_deadline: stamp(r.deadline, tz),
    last_point: s.last_point
      ? { ...stamp(s.last_point.date, tz), latitude: s.last_point.latitude, longitude: s.last_point.longitude, horizontal_accuracy: s.last_point.horizontal_accuracy }
      : null,
    transitions: r.history.map((t) => ({ from: t.from, to: t.to, reason: t.reason, outcome: t.outcome ?? null, ...stamp(t.at, tz) })),
  };
}

/** Where the user's last point puts them relative to a place, by the same rule the engine applies. */
function outsideView(user: UserDoc, trigger: TriggerDoc, place: PlaceDoc, last: LocationDoc | null, tz: string) {
  const base = { user_id: user._id, trigger_id: trigger._id, place_id: place._id, state: 'outside' as const };
  if (!last) return { ...base, explanation: 'No location has been received from this user yet.' };
  const distance = haversineM(last.latitude, last.longitude, place.latitude, place.longitude);
  const zone = classifyZone(distance, place.radius, last.horizontal_accuracy);
  const margin = leaveMarginM(place.radius);
  const why: Record<typeof zone, string> = {
    in: 'The last point is inside the place, but it did not move this machine (an older point, a gate, or a change since).',
    out: `The last point is ${Math.round(distance - place.radius)} m outside the place.`,
    band: `The last point is in the hysteresis band (between ${place.radius} m and ${Math.round(place.radius + margin)} m from the centre): it changes nothing.`,
    unusable: `The last point's accuracy (${last.horizontal_accuracy} m) is worse than ${maxAccuracyM(place.radius)} m: it moves no machine of this place.`,
  };
  return {
    ...base,
    last_point: { ...stamp(last.date, tz), latitude: last.latitude, longitude: last.longitude, horizontal_accuracy: last.horizontal_accuracy },
    distance_m: Math.round(distance * 10) / 10,
    zone,
    explanation: why[zone],
  };
}

async function placesOf(ctx: ServiceContext, t: TriggerDoc, placeId?: string): Promise<PlaceDoc[]> {
  const places = t.on_layer
    ? await ctx.store.places.list(t.app_id, { layer_id: t.layer_id })
    : t.place_id ? [await ctx.store.places.get(t.app_id, t.place_id)].filter((p): p is PlaceDoc => p !== null) : [];
  return placeId ? places.filter((p) => p._id === placeId) : places;
}

/**
 * trigger/state/:id — every machine of a trigger, or one user's machines with the outside pairs
 * explained. Dated in `headerZone` (the Timezone header's), else the user's zone, else UTC.
 */
export async function triggerState(ctx: ServiceContext, appId: string, triggerId: string, q: { user_id?: string; place_id?: string }, headerZone?: string) {
  const trigger = await ctx.store.triggers.get(appId, triggerId);
  if (!trigger) throw notFound('Trigger');
  const filter: Record<string, unknown> = { app_id: appId, trigger_id: triggerId };
  if (q.user_id) filter.user_id = q.user_id;
  if (q.place_id) filter.place_id = q.place_id;
  const states = await ctx.store.collection<MachineStateDoc>('machine_states').find(filter as never, { sort: { updated_at: -1 }, limit: 1000 }).toArray();
  if (!q.user_id) return { trigger_id: triggerId, machines: states.map((s) => machineView(s, headerZone ?? 'UTC')) };
  const user = await ctx.store.users.get(appId, q.user_id);
  if (!user) throw notFound('User');
  const tz = requestTimeZone(headerZone, user);
  const last = await ctx.store.collection<LocationDoc>('last_locations').findOne({ _id: user._id, app_id: appId });
  const byPlace = new Map(states.map((s) => [s.place_id, s]));
  const machines = (await placesOf(ctx, trigger, q.place_id)).map((p) => {
    const s = byPlace.get(p._id);
    return s ? machineView(s, tz) : outsideView(user, trigger, p, last, tz);
  });
  return { trigger_id: triggerId, user_id: user._id, machines };
}

/** trigger/state?user_id= — one user's machines across every trigger (only those not outside); dated as triggerState. */
export async function userMachines(ctx: ServiceContext, appId: string, userId: string, headerZone?: string) {
  const user = await ctx.store.users.get(appId, userId);
  if (!user) throw notFound('User');
  const tz = requestTimeZone(headerZone, user);
  const states = await ctx.store.collection<MachineStateDoc>('machine_states').find({ app_id: appId, user_id: userId }, { sort: { updated_at: -1 } }).toArray();
  const last = await ctx.store.collection<LocationDoc>('last_locations').findOne({ _id: user._id, app_id: appId });
  return {
    user_id: userId,
    last_location: last ? { ...stamp(last.date, tz), latitude: last.latitude, longitude: last.longitude, horizontal_accuracy: last.horizontal_accuracy } : null,
    machines: states.map((s) => machineView(s, tz)),
  };
}
