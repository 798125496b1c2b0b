// The callback payload: reference §5 exactly (layer, place, trigger, user, triggered_on,
// triggered_delay, with the example's scalar types: strings in `trigger` and `user`, numbers in
// `layer` and `place`), plus the keys the reference allows a re-implementation to add and that old
// receivers ignore: event_id (= the webhook-id header), date/date_ts of the firing, and the
// triggering point in location/last format. Built from stored documents only, so a retry hours
// later sends what was true at firing time (the outbox keeps the built payload).
import { isoDate, offsetString, unixSeconds } from '../services/dates.js';
import { boundsOf } from '../services/geo-objects.js';
import { hasPushToken } from '../services/profile.js';
import { windowOver } from '../services/validity-window.js';
import type { ApplicationDoc, Extra, LayerDoc, PlaceDoc, TriggerDoc, UserDoc } from '../store/documents.js';

/** The point that caused a firing, as the engine hands it over. */
export interface FiringPoint {
  /** Device timestamp, epoch ms. */
  date: number;
  latitude: number;
  longitude: number;
  horizontal_accuracy?: number | null;
  vertical_accuracy?: number | null;
  altitude?: number | null;
  speed?: number | null;
  heading?: number | null;
  raw?: Record<string, unknown> | null;
  uuid?: string;
}

export interface LatLng {
  latitude: number;
  longitude: number;
}

export interface LayerBounds {
  center: LatLng;
  map: string;
  ne: LatLng;
  sw: LatLng;
  radius: number;
}

export interface CallbackPayload {
  layer: {
    bounds: LayerBounds | false;
    description: string;
    extra: Extra;
    icon: string;
    layer_id: string;
    name: string;
    public: number;
    public_userlist: number;
    settings: false;
    subscription: false;
    trigger_rate_limit: number;
    type: string;
    user_id: string;
  };
  place: {
    active: number;
    description: string;
    display_name: string;
    extra: Extra;
    latitude: number;
    longitude: number;
    radius: number;
    map: string;
    name: string;
    place_id: string;
    time_from: string;
    time_to: string;
  };
  trigger: {
    callback_url?: string;
    text?: string;
    url?: string;
    extra: Extra;
    one_time: string;
    place_id?: string;
    layer_id?: string;
    trigger_after: string;
    trigger_id: string;
    trigger_on: string;
    type: string;
  };
  triggered_delay: string;
  triggered_on: 'enter' | 'leave';
  user: {
    bio: string;
    devices: { apns_dev: string[]; apns_live: string[]; c2dm: string[]; gcm: string[] };
    display_name: string;
    extra: Extra;
    has_custom_username: string;
    has_push_token: string;
    is_anonymous: string;
    name: string;
    profile_image: string;
    public_geonote_email: string;
    public_geonotes: string;
    public_location: string;
    timezone: string;
    timezone_offset: string;
    twitter: string;
    user_id: string;
    username: string;
    website: string;
  };
  event_id: string;
  date: string;
  date_ts: number;
  location: LocationRecord;
}

export interface LocationRecord {
  date: string;
  date_ts: number;
  location: {
    type: 'point';
    position: {
      latitude: number;
      longitude: number;
      speed: number | null;
      altitude: number | null;
      heading: number | null;
      horizontal_accuracy: number | null;
      vertical_accuracy: number | null;
    };
  };
  raw: Record<string, unknown> | null;
  uuid?: string;
}

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
export function layerBounds(places: Array<Pick<PlaceDoc, 'latitude' | 'longitude' | 'radius'>>): LayerBounds | false {
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

export interface PayloadInput {
  app: Pick<ApplicationDoc, '_id'>;
  user: UserDoc;
  trigger: TriggerDoc;
  place: PlaceDoc;
  layer: LayerDoc;
  /** Bounds of the layer (layerBounds of its places), computed by the caller who can cache them. */
  bounds: LayerBounds | false;
  event_id: string;
  triggered_on: 'enter' | 'leave';
  /** Seconds of dwell before the firing (the trigger's trigger_after for a dwell trigger). */
  delay_s: number;
  /** Epoch ms of the firing. */
  at: number;
  location: FiringPoint;
}

const str = (v: number | boolean) => String(typeof v === 'boolean' ? (v ? 1 : 0) : v);

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

function layerPart(layer: LayerDoc, bounds: LayerBounds | false, appId: string): CallbackPayload['layer'] {
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
function placePart(place: PlaceDoc, active: 0 | 1): CallbackPayload['place'] {
  return {
    active,
    description: place.description,
    // No reverse geocoding: the name is the only label (as in services/geo-objects.ts).
    display_name: place.name,
    extra: place.extra ?? {},
    latitude: place.latitude,
    longitude: place.longitude,
    radius: place.radius,
    map: mapUrl(place.latitude, place.longitude, place.radius),
    name: place.name,
    place_id: place._id,
    time_from: place.time_from ?? '00:00:00',
    time_to: place.time_to ?? '00:00:00',
  };
}

function triggerPart(trigger: TriggerDoc): CallbackPayload['trigger'] {
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

function userPart(user: UserDoc, tz: string, offset: string): CallbackPayload['user'] {
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

// ---- the payload as the text stored in the outbox ------------------------------------------------
//
// Building a payload object and serialising it took ~15 µs of the main thread per callback
// (bench-firings: 5 µs as text from the kept parts), most of it on the layer, place, trigger and user parts, which depend on their
// document only. Their JSON is kept per document object: the documents of firings come from the
// delivery runtime's cache (runtime.ts), frozen and shared until they change, so a changed
// document is a new object. A document that is not frozen is serialised every time.

const layerTexts = new WeakMap<LayerDoc, { bounds: LayerBounds | false; appId: string; text: string }>();
const placeTexts = new WeakMap<PlaceDoc, [string | undefined, string | undefined]>();
const triggerTexts = new WeakMap<TriggerDoc, string>();
/** The user part's JSON around its timezone_offset, the one value that depends on the time. */
const userTexts = new WeakMap<UserDoc, { head: string; tail: string } | false>();
/** Stands for the offset while the user part is serialised once, to be cut out. */
const OFFSET_MARK = '\u0000timezone_offset\u0000';

function layerText(layer: LayerDoc, bounds: LayerBounds | false, appId: string): string {
  const hit = layerTexts.get(layer);
  if (hit && hit.bounds === bounds && hit.appId === appId) return hit.text;
  const text = JSON.stringify(layerPart(layer, bounds, appId));
  if (Object.isFrozen(layer)) layerTexts.set(layer, { bounds, appId, text });
  return text;
}

function placeText(place: PlaceDoc, active: 0 | 1): string {
  const hit = placeTexts.get(place);
  if (hit?.[active] !== undefined) return hit[active]!;
  const text = JSON.stringify(placePart(place, active));
  if (Object.isFrozen(place)) {
    const texts = hit ?? [undefined, undefined];
    texts[active] = text;
    placeTexts.set(place, texts);
  }
  return text;
}

function triggerText(trigger: TriggerDoc): string {
  let text = triggerTexts.get(trigger);
  if (text === undefined) {
    text = JSON.stringify(triggerPart(trigger));
    if (Object.isFrozen(trigger)) triggerTexts.set(trigger, text);
  }
  return text;
}

function userText(user: UserDoc, tz: string, offset: string): string {
  let parts = userTexts.get(user);
  if (parts === undefined && Object.isFrozen(user)) {
    // Cut at the mark; should a field hold the mark itself, this user is serialised every time.
    const pieces = JSON.stringify(userPart(user, tz, OFFSET_MARK)).split(JSON.stringify(OFFSET_MARK));
    parts = pieces.length === 2 ? { head: pieces[0]!, tail: pieces[1]! } : false;
    userTexts.set(user, parts);
  }
  // `tz` is the document's own timezone (or UTC), so it is the same on every call for one document.
  if (!parts) return JSON.stringify(userPart(user, tz, offset));
  return parts.head + JSON.stringify(offset) + parts.tail;
}

/** JSON.stringify(buildCallbackPayload(input)), from the parts kept per document: the outbox's text. */
export function callbackPayloadText(input: PayloadInput): string {
  const { user, place } = input;
  const tz = user.timezone || 'UTC';
  return (
    `{"layer":${layerText(input.layer, input.bounds, input.app._id)}` +
    `,"place":${placeText(place, windowOver(place, input.at) ? 0 : 1)}` +
    `,"trigger":${triggerText(input.trigger)}` +
    `,"triggered_delay":${JSON.stringify(str(input.delay_s))}` +
    `,"triggered_on":${JSON.stringify(input.triggered_on)}` +
    `,"user":${userText(user, tz, offsetString(tz, input.at))}` +
    `,"event_id":${JSON.stringify(input.event_id)}` +
    `,"date":${JSON.stringify(isoDate(input.at, tz))}` +
    `,"date_ts":${JSON.stringify(unixSeconds(input.at))}` +
    `,"location":${JSON.stringify(locationRecord(input.location, tz))}}`
  );
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
