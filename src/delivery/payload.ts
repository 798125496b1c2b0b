// The callback payload: reference §5 exactly (layer, place, trigger, user, triggered_on,
// triggered_delay, with the example's scalar types: strings in `trigger` and `user`, numbers in
// `layer` and `place`), plus the keys the reference allows a re-implementation to add and that old
// receivers ignore: event_id (= the webhook-id header), date/date_ts of the firing, and the
// triggering point in location/last format. Built from stored documents only, so a retry hours
// later sends what was true at firing time (the outbox keeps the built payload).
import { isoDate, offsetString, unixSeconds, windowOver } from '../schemas/dates.js';
import { boundsOf } from '../geo/bounds.js';
import { hasPushToken } from './push-token.js';
import type { LayerDoc, PlaceDoc, TriggerDoc, UserDoc } from '../store/documents.js';
import type { CallbackPayload, FiringPoint, LayerBounds, LocationRecord, PayloadInput } from './payload-types.js';

export type { CallbackPayload, FiringPoint, LatLng, LayerBounds, LocationRecord, PayloadInput } from './payload-types.js';

/**
 * The historical `map` links (map.geoloqi.com) are gone; an OpenStreetMap link at the same place
 * keeps the key useful. The radius travels in the fragment-free query so the link stays stable.
 */
export function mapUrl(lat: number, lng: number, radius: number): string {
  const zoom = radius > 5000 ? 11 : radius > 1000 ? 13 : radius > 200 ? 15 : 17;
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}&radius=${round(radius, 2)}#map=${zoom}/${lat}/${lng}`;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * The layer's bounds as layer/info shows them (services/geo-objects.ts boundsOf: the box around
 * every place circle, its centre, and the centre-to-corner radius), plus the `map` link of the
 * reference §5 example; `false` for a layer without places.
 */
export function layerBounds(places: Array<Pick<PlaceDoc, 'latitude' | 'longitude' | 'radius' | 'geometry' | 'width'>>): LayerBounds | false {
  const b = boundsOf(places);
  if (!b) return false;
  return { center: b.center, map: mapUrl(b.center.latitude, b.center.longitude, b.radius), ne: b.ne, sw: b.sw, radius: b.radius };
}

/** A point in location/last format, dated in the user's timezone. */
export function locationRecord(p: FiringPoint, timeZone = 'UTC'): LocationRecord {
  const num = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    date: isoDate(p.date, timeZone),
    date_ts: unixSeconds(p.date),
    location: {
      type: 'point',
      position: {
        latitude: p.latitude,
        longitude: p.longitude,
        speed: num(p.speed),
        altitude: num(p.altitude),
        heading: num(p.heading),
        horizontal_accuracy: num(p.horizontal_accuracy),
        vertical_accuracy: num(p.vertical_accuracy),
      },
    },
    raw: p.raw ?? null,
    ...(p.uuid ? { uuid: p.uuid } : {}),
  };
}
export const str = (v: number | boolean) => String(typeof v === 'boolean' ? (v ? 1 : 0) : v);

export function buildCallbackPayload(input: PayloadInput): CallbackPayload {
  const { user, trigger, place, layer } = input;
  const tz = user.timezone || 'UTC';
  return {
    layer: layerPart(layer, input.bounds, input.app._id),
    place: placePart(place, windowOver(place, input.at) ? 0 : 1),
    trigger: triggerPart(trigger),
    triggered_delay: str(input.delay_s),
    triggered_on: input.triggered_on,
    user: userPart(user, tz, offsetString(tz, input.at)),
    event_id: input.event_id,
    date: isoDate(input.at, tz),
    date_ts: unixSeconds(input.at),
    location: locationRecord(input.location, tz),
  };
}

export function layerPart(layer: LayerDoc, bounds: LayerBounds | false, appId: string): CallbackPayload['layer'] {
  return {
    bounds,
    description: layer.description,
    extra: layer.extra ?? {},
    icon: layer.icon,
    layer_id: layer._id,
    name: layer.name,
    public: layer.public,
    public_userlist: layer.public_userlist,
    settings: false,
    subscription: false,
    trigger_rate_limit: layer.trigger_rate_limit,
    type: layer.type,
    // Layers belong to the application here, not to a developer's user account.
    user_id: appId,
  };
}

/** `active`: whether the place's date window was still open when it fired (it normally is). */
export function placePart(place: PlaceDoc, active: 0 | 1): CallbackPayload['place'] {
  return {
    active,
    description: place.description,
    // No reverse geocoding: the name is the only label (as in services/geo-objects.ts).
    display_name: place.name,
    extra: place.extra ?? {},
    latitude: place.latitude,
    longitude: place.longitude,
    radius: place.radius,
    ...(place.geometry !== undefined ? { geometry: place.geometry, ...(place.width !== undefined ? { width: place.width } : {}) } : {}),
    map: mapUrl(place.latitude, place.longitude, place.radius),
    name: place.name,
    place_id: place._id,
    time_from: place.time_from ?? '00:00:00',
    time_to: place.time_to ?? '00:00:00',
  };
}

export function triggerPart(trigger: TriggerDoc): CallbackPayload['trigger'] {
  return {
    ...(trigger.type === 'callback' ? { callback_url: trigger.url } : { text: trigger.text, ...(trigger.url ? { url: trigger.url } : {}) }),
    extra: trigger.extra ?? {},
    one_time: str(trigger.one_time),
    // A layer trigger names its layer where a place trigger names its place (reference §5).
    ...(trigger.on_layer || !trigger.place_id ? { layer_id: trigger.layer_id } : { place_id: trigger.place_id }),
    trigger_after: str(trigger.trigger_after),
    trigger_id: trigger._id,
    trigger_on: trigger.trigger_on,
    type: trigger.type,
  };
}

export function userPart(user: UserDoc, tz: string, offset: string): CallbackPayload['user'] {
  return {
    bio: user.bio,
    devices: {
      apns_dev: [...user.devices.apns_dev],
      apns_live: [...user.devices.apns_live],
      c2dm: [...user.devices.c2dm],
      gcm: [...user.devices.gcm],
    },
    display_name: user.display_name,
    extra: user.extra ?? {},
    has_custom_username: str(user.has_custom_username),
    has_push_token: str(hasPushToken(user)),
    is_anonymous: str(user.is_anonymous),
    name: user.name,
    profile_image: user.profile_image,
    public_geonote_email: str(user.public_geonote_email),
    public_geonotes: str(user.public_geonotes),
    public_location: str(user.public_location),
    timezone: tz,
    timezone_offset: offset,
    twitter: user.twitter,
    user_id: user._id,
    username: user.username,
    website: user.website,
  };
}

/** The user of a trigger/run without user_id; no real user has this id (ids are 8 characters). */
export const PLACEHOLDER_USER_ID = 'test';

/**
 * The user trigger/run puts in a payload when no user_id is given: a stand-in that is plainly not
 * a real user, so a developer can inspect the payload shape without creating one.
 */
export function placeholderUser(appId: string, now: number): UserDoc {
  return {
    _id: PLACEHOLDER_USER_ID, app_id: appId, username: 'test', uniq_username: `${appId}:test`, name: 'Test User', display_name: 'Test User',
    bio: '', website: '', timezone: 'UTC', profile_image: '', phone: '', twitter: '', facebook: '',
    is_anonymous: 1, has_custom_username: 0, public_location: 0, public_geonotes: 0, public_geonote_email: 0,
    extra: {}, devices: { apns_dev: [], apns_live: [], c2dm: [], gcm: [] }, created_at: now,
  };
}
