// The machine inspector: for developers asking "why did (or didn't) this trigger fire for this
// user?". It shows each (user, trigger, place) machine's state, since when, the point that last
// moved it and its recent transitions (with the gate that stopped a firing, if one did); for a pair
// that is outside (no machine), it explains from the user's last location where the user is
// relative to the place: distance, accuracy, and the zone the hysteresis rule gives (measured from
// the centre of a circle, or from the edge of a polygon or corridor: src/geo/fence-zone.ts).
import { haversineM } from '../geo/distance.js';
import { fenceDistanceM, fenceMarginM, fenceZone, outsideM, type ZoneFence } from '../geo/fence-zone.js';
import { maxAccuracyM } from '../geo/hysteresis.js';
import { prepareShape } from '../geo/shape.js';
import { notFound } from '../errors.js';
import type { LocationDoc, MachineStateDoc, PlaceDoc, TriggerDoc, UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { isoDate, unixSeconds } from '../schemas/dates.js';
import { requestTimeZone } from './request-zone.js';
import { pairTimelines, requireTriggerOrTrace } from './timeline.js';

/** Machines of one trigger shown at most, the last moved first. */
const MAX_MACHINES = 1000;

const stamp = (at: number | undefined, tz: string) => (at === undefined ? null : { date: isoDate(at, tz), date_ts: unixSeconds(at) });

export function machineView(s: MachineStateDoc, tz: string) {
  const r = s.record;
  return {
    user_id: s.user_id,
    trigger_id: s.trigger_id,
    place_id: s.place_id,
    state: r.state,
    since: stamp(r.since, tz),
    entered_at: stamp(r.enteredAt, tz),
    dwell_deadline: stamp(r.deadline, tz),
    last_point: s.last_point
      ? { ...stamp(s.last_point.date, tz), latitude: s.last_point.latitude, longitude: s.last_point.longitude, horizontal_accuracy: s.last_point.horizontal_accuracy }
      : null,
    transitions: r.history.map((t) => ({ from: t.from, to: t.to, reason: t.reason, outcome: t.outcome ?? null, ...stamp(t.at, tz) })),
  };
}

/** What explains an outside pair, first match wins (see outsideView). */
export type ExplanationCode =
  | 'no_location' | 'not_subscribed' | 'trigger_expired' | 'trigger_not_started' | 'place_date_window'
  | 'zone_out' | 'zone_band' | 'zone_unusable' | 'zone_in' | 'trigger_deleted';

export interface OutsideFacts {
  user: UserDoc;
  trigger: TriggerDoc;
  place: PlaceDoc;
  last: LocationDoc | null;
  /** The user is on the place's layer (the default layer, or subscribed). */
  onLayer: boolean;
  now: number;
  tz: string;
}

/**
 * Why a pair is outside (no machine), by the rules the engine applies: a user not on the place's
 * layer is not evaluated at all; an expired or not yet active trigger, or a place outside its date
 * window, fires for no one; otherwise the user's last point, by the hysteresis rule.
 */
export function outsideView(f: OutsideFacts) {
  const { user, trigger, place, last, tz } = f;
  const base = { user_id: user._id, trigger_id: trigger._id, place_id: place._id, state: 'outside' as const };
  const point = last
    ? { last_point: { ...stamp(last.date, tz), latitude: last.latitude, longitude: last.longitude, horizontal_accuracy: last.horizontal_accuracy } }
    : {};
  const blocked = blockedBy(f);
  if (!last) {
    const code: ExplanationCode = blocked?.code ?? 'no_location';
    const text = 'No location has been received from this user yet.';
    return { ...base, explanation: blocked ? `${blocked.text} ${text}` : text, explanation_code: code };
  }
  const fence: ZoneFence = { lat: place.latitude, lon: place.longitude, radius: place.radius };
  if (place.geometry !== undefined) fence.shape = prepareShape(place.geometry, place.width);
  const measured = fenceDistanceM(fence, last.latitude, last.longitude);
  const zone = fenceZone(fence, measured, last.horizontal_accuracy);
  const margin = fenceMarginM(fence);
  const outside = outsideM(fence, measured);
  const distance = haversineM(last.latitude, last.longitude, place.latitude, place.longitude);
  const edge = place.geometry === undefined ? null : `the ${place.geometry.type === 'LineString' ? 'corridor' : 'polygon'}'s edge`;
  const why: Record<typeof zone, string> = {
    in: last.date < Math.max(trigger.created_at, place.created_at)
      ? `The last point (${isoDate(last.date, tz)}) is inside the place but came before the ${trigger.created_at >= place.created_at ? 'trigger' : 'place'} existed: the next point inside enters it.`
      : 'The last point is inside the place as it is now, but no point has moved this machine since the geofence last changed (created, moved or resized, or the user rejoined its layer): the next point inside enters it.',
    out: edge === null
      ? `The last point is ${Math.round(outside)} m outside the place.`
      : `The last point is ${Math.round(outside)} m outside ${edge}, past the ${Math.round(margin)} m leave margin.`,
    band: edge === null
      ? `The last point is in the hysteresis band (between ${place.radius} m and ${Math.round(place.radius + margin)} m from the centre): it changes nothing.`
      : `The last point is in the hysteresis band (${outside < 1 ? 'less than 1' : Math.round(outside)} m outside ${edge}, inside the ${Math.round(margin)} m leave margin): it changes nothing.`,
    unusable: `The last point's accuracy (${last.horizontal_accuracy} m) is worse than ${maxAccuracyM(place.radius)} m: it moves no machine of this place.`,
  };
  return {
    ...base,
    ...point,
    distance_m: Math.round(distance * 10) / 10,
    ...(fence.shape !== undefined
      ? { boundary: { shape: fence.shape.kind, outside_m: Math.round(outside * 10) / 10, margin_m: Math.round(margin * 10) / 10 } }
      : {}),
    zone,
    explanation: blocked ? `${blocked.text} ${zoneSentence(zone, outside)}` : why[zone],
    explanation_code: blocked?.code ?? (`zone_${zone}` as ExplanationCode),
  };
}

/** Where the last point is, said briefly (after a reason that already explains the pair). */
function zoneSentence(zone: string, outside: number): string {
  if (zone === 'in') return 'The last point is inside the place.';
  if (zone === 'out') return `The last point is ${Math.round(outside)} m outside the place.`;
  return zone === 'band' ? 'The last point is in the hysteresis band.' : 'The last point is too inaccurate to count.';
}

/** A reason the pair cannot move or fire whatever the user does, or null. */
function blockedBy(f: OutsideFacts): { code: ExplanationCode; text: string } | null {
  const { trigger, place, now, tz } = f;
  if (!f.onLayer) {
    return { code: 'not_subscribed', text: `The user is not subscribed to layer ${place.layer_id}, the place's layer: this trigger is not evaluated for them.` };
  }
  if (trigger.date_to !== undefined && now > trigger.date_to) {
    return { code: 'trigger_expired', text: `The trigger expired on ${isoDate(trigger.date_to, tz)} (its date_to): it fires for no one.` };
  }
  if (trigger.date_from !== undefined && now < trigger.date_from) {
    return { code: 'trigger_not_started', text: `The trigger is active from ${isoDate(trigger.date_from, tz)} (its date_from): until then it fires for no one.` };
  }
  const placeClosed = (place.date_to !== undefined && now > place.date_to) || (place.date_from !== undefined && now < place.date_from);
  if (placeClosed) {
    const bounds = [place.date_from !== undefined ? `from ${isoDate(place.date_from, tz)}` : '', place.date_to !== undefined ? `until ${isoDate(place.date_to, tz)}` : ''].filter(Boolean).join(' ');
    return { code: 'place_date_window', text: `The place is outside its date window (valid ${bounds}): it fires nothing now.` };
  }
  return null;
}

async function placesOf(ctx: ServiceContext, t: TriggerDoc, placeId?: string): Promise<PlaceDoc[]> {
  const places = t.on_layer
    ? await ctx.store.places.onLayer(t.app_id, t.layer_id)
    : t.place_id ? [await ctx.store.places.get(t.app_id, t.place_id)].filter((p): p is PlaceDoc => p !== null) : [];
  return placeId ? places.filter((p) => p._id === placeId) : places;
}

/**
 * trigger/state/:id — every machine of a trigger, or one user's machines with the outside pairs
 * explained. Dated in `headerZone` (the Timezone header's), else the user's zone, else UTC.
 */
export async function triggerState(ctx: ServiceContext, appId: string, triggerId: string, q: { user_id?: string; place_id?: string }, headerZone?: string) {
  const trigger = await ctx.store.triggers.get(appId, triggerId);
  if (!trigger) {
    await requireTriggerOrTrace(ctx, appId, triggerId);
    return deletedTriggerState(ctx, appId, triggerId, q, headerZone);
  }
  const only: { user_id?: string; place_id?: string } = {};
  if (q.user_id) only.user_id = q.user_id;
  if (q.place_id) only.place_id = q.place_id;
  const states = await ctx.store.machines.ofTrigger(appId, triggerId, only, MAX_MACHINES);
  if (!q.user_id) {
    const names = new Map((await ctx.store.places.many(appId, [...new Set(states.map((s) => s.place_id))])).map((p) => [p._id, p.name]));
    return { trigger_id: triggerId, machines: states.map((s) => ({ ...machineView(s, headerZone ?? 'UTC'), trigger_key: trigger.key ?? null, place_name: names.get(s.place_id) ?? null })) };
  }
  const user = await ctx.store.users.get(appId, q.user_id);
  if (!user) throw notFound('User');
  const tz = requestTimeZone(headerZone, user);
  const [last, app, subs, places] = await Promise.all([
    ctx.store.lastLocations.of(appId, user._id),
    ctx.store.applications.get(appId),
    ctx.store.subscriptions.forUser(appId, user._id),
    placesOf(ctx, trigger, q.place_id),
  ]);
  const layers = new Set([app?.default_layer_id, ...subs.map((s) => s.layer_id)]);
  const timelines = await pairTimelines(ctx, appId, user._id, triggerId, places.length, tz);
  const byPlace = new Map(states.map((s) => [s.place_id, s]));
  const now = ctx.now();
  const machines = places.map((p) => {
    const s = byPlace.get(p._id);
    const view = s ? machineView(s, tz) : outsideView({ user, trigger, place: p, last, onLayer: layers.has(p.layer_id), now, tz });
    return { ...view, trigger_key: trigger.key ?? null, place_name: p.name, timeline: timelines.get(p._id) ?? [] };
  });
  return { trigger_id: triggerId, user_id: user._id, machines };
}

/** Pairs of a deleted trigger shown at most (its places in the user's timeline). */
const MAX_DELETED_PAIRS = 50;

/**
 * trigger/state/:id of a deleted trigger that still has a timeline: its machines are gone (no pair
 * is tracked any more), so each place the user's timeline names is outside, explained as deleted,
 * with its recent decisions.
 */
async function deletedTriggerState(ctx: ServiceContext, appId: string, triggerId: string, q: { user_id?: string; place_id?: string }, headerZone?: string) {
  if (!q.user_id) return { trigger_id: triggerId, deleted: true as const, machines: [] };
  const user = await ctx.store.users.get(appId, q.user_id);
  if (!user) throw notFound('User');
  const tz = requestTimeZone(headerZone, user);
  const timelines = await pairTimelines(ctx, appId, user._id, triggerId, MAX_DELETED_PAIRS, tz);
  const placeIds = [...timelines.keys()].filter((id) => !q.place_id || id === q.place_id);
  const names = new Map((await ctx.store.places.many(appId, placeIds)).map((p) => [p._id, p.name]));
  const machines = placeIds.map((placeId) => ({
    user_id: user._id, trigger_id: triggerId, place_id: placeId, state: 'outside' as const,
    explanation: 'The trigger was deleted: nothing is evaluated for it any more. Its decisions stay here while the timeline keeps them.',
    explanation_code: 'trigger_deleted' as const,
    trigger_key: null, place_name: names.get(placeId) ?? null,
    timeline: timelines.get(placeId) ?? [],
  }));
  return { trigger_id: triggerId, user_id: user._id, deleted: true as const, machines };
}

/** trigger/state?user_id= — one user's machines across every trigger (only those not outside); dated as triggerState. */
export async function userMachines(ctx: ServiceContext, appId: string, userId: string, headerZone?: string) {
  const user = await ctx.store.users.get(appId, userId);
  if (!user) throw notFound('User');
  const tz = requestTimeZone(headerZone, user);
  const states = await ctx.store.machines.ofUser(appId, userId);
  const last = await ctx.store.lastLocations.of(appId, user._id);
  // The names of the machines' triggers and places: one read per distinct trigger, one for the places.
  const [triggers, places] = await Promise.all([
    Promise.all([...new Set(states.map((s) => s.trigger_id))].map((id) => ctx.store.triggers.get(appId, id))),
    ctx.store.places.many(appId, [...new Set(states.map((s) => s.place_id))]),
  ]);
  const keys = new Map(triggers.filter((t) => t !== null).map((t) => [t._id, t.key ?? null]));
  const names = new Map(places.map((p) => [p._id, p.name]));
  return {
    user_id: userId,
    last_location: last ? { ...stamp(last.date, tz), latitude: last.latitude, longitude: last.longitude, horizontal_accuracy: last.horizontal_accuracy } : null,
    machines: states.map((s) => ({ ...machineView(s, tz), trigger_key: keys.get(s.trigger_id) ?? null, place_name: names.get(s.place_id) ?? null })),
  };
}
