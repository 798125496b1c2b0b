// The public shapes of layers, places and triggers (reference §4.1, §4.4, §4.5, §7 items 5, 9, 10):
// one formatter per object so every endpoint, and later the callback payload, shows the same fields.
import { boundsOf, type Bounds } from '../geo/bounds.js';
import type { LayerDoc, PlaceDoc, TriggerDoc } from '../store/documents.js';
import { renderDates, windowOver } from './validity-window.js';

export { boundsOf, type Bounds };

const ALL_DAY = '00:00:00';

/** What a create answers: the object, and whether it is new or already held the key (§6.5: 409). */
export interface Created<T> {
  created: boolean;
  body: T;
}

export function placeObject(p: PlaceDoc, now: number, timeZone = 'UTC') {
  return {
    place_id: p._id,
    layer_id: p.layer_id,
    name: p.name,
    // No reverse geocoding: the name is the only label there is (reference §7 item 9).
    display_name: p.name,
    description: p.description,
    latitude: p.latitude,
    longitude: p.longitude,
    radius: p.radius,
    // A polygon or corridor (docs/api.md "Shapes"); a circle has neither field.
    ...(p.geometry !== undefined ? { geometry: p.geometry, ...(p.width !== undefined ? { width: p.width } : {}) } : {}),
    active: windowOver(p, now) ? 0 : 1,
    time_from: p.time_from ?? ALL_DAY,
    time_to: p.time_to ?? ALL_DAY,
    ...renderDates(p, timeZone),
    extra: p.extra,
    ...(p.key !== undefined ? { key: p.key } : {}),
    visits: p.visits ?? 0,
  };
}

export type PlaceObject = ReturnType<typeof placeObject>;

/** Layer fields shared by create, list, subscriptions and info (info adds bounds and counts). */
export function layerObject(l: LayerDoc) {
  return {
    layer_id: l._id,
    type: l.type,
    name: l.name,
    description: l.description,
    icon: l.icon,
    url: l.url,
    public: l.public,
    public_userlist: l.public_userlist,
    trigger_rate_limit: l.trigger_rate_limit,
    ...(l.key !== undefined ? { key: l.key } : {}),
    ...(l.latitude !== undefined && l.longitude !== undefined
      ? { latitude: l.latitude, longitude: l.longitude, ...(l.radius !== undefined ? { radius: l.radius } : {}) }
      : {}),
    extra: l.extra,
  };
}

/** 1e-7 degrees is about a centimetre: finer digits are noise. */


/**
 * A trigger as trigger/create answers it (reference §4.1, §7 item 5): `place_id` and a nested
 * `place` for a place trigger, `layer_id` for a layer trigger; callback URLs also as `callback_url`.
 */
export function triggerObject(t: TriggerDoc, place: PlaceDoc | null, now: number, timeZone = 'UTC') {
  return {
    trigger_id: t._id,
    ...(t.on_layer ? { layer_id: t.layer_id } : { place_id: t.place_id }),
    ...(t.key !== undefined ? { key: t.key } : {}),
    type: t.type,
    trigger_on: t.trigger_on,
    trigger_after: t.trigger_after,
    one_time: t.one_time,
    text: t.text,
    url: t.url,
    ...(t.type === 'callback' ? { callback_url: t.url } : {}),
    extra: t.extra,
    active: windowOver(t, now) ? 0 : 1,
    ...renderDates(t, timeZone),
    ...(t.time_from !== undefined ? { time_from: t.time_from } : {}),
    ...(t.time_to !== undefined ? { time_to: t.time_to } : {}),
    ...(place ? { place: placeObject(place, now, timeZone) } : {}),
  };
}
