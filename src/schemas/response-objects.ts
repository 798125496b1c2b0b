// The objects the API answers with (reference §1, §4, §5; seed "User"), for the OpenAPI document
// only: no route serializes with them (http/openapi.ts attaches them to the document, not to the
// routes' `response` schema), so what a handler returns is sent as ever. Each is a component of the
// document under its name in DOC_OBJECTS; `doc('User')` refers to it. test/http/openapi.test.ts
// checks real answers against them.
import { Type, type TSchema } from '@sinclair/typebox';

/** `{ $ref }` to one of the document's components. */
export const doc = (name: string) => Type.Unsafe({ $ref: `#/components/schemas/${name}` });

/** 1 or 0: booleans travel as numbers (reference §1). */
const Bit = Type.Union([Type.Literal(0), Type.Literal(1)]);
/** A free-form hash, stored and returned as sent (reference §6.6). */
const Extra = Type.Record(Type.String(), Type.Unknown(), { description: 'free-form properties, returned as stored' });
const Iso = Type.String({ description: 'ISO-8601 with the offset of the request\'s zone, e.g. 2011-03-26T15:36:00-07:00' });
const UnixSeconds = Type.Integer({ description: 'Unix seconds' });
const LatLng = Type.Object({ latitude: Type.Number(), longitude: Type.Number() }, { additionalProperties: false });
const closed = { additionalProperties: false } as const;

export const ErrorBody = Type.Object({
  error_code: Type.Integer({ description: 'the HTTP status' }),
  error: Type.String({ description: 'a short snake_case code: invalid_input, not_found, invalid_token…' }),
  error_description: Type.String({ description: 'what went wrong, for a person' }),
}, { ...closed, description: 'Every error the service sends has this shape (reference §3).' });

export const Paging = Type.Object({
  next_offset: Type.Optional(Type.Integer({ description: 'only when more records exist' })),
  limit: Type.Integer(),
  total: Type.Integer(),
}, { ...closed, description: 'Paging (reference §6.10): pass next_offset as offset for the next page.' });

export const Bounds = Type.Object({
  sw: LatLng, ne: LatLng, center: LatLng,
  radius: Type.Number({ description: 'metres from the centre to a corner' }),
}, { ...closed, description: 'The box around every place of a layer' });

const Devices = Type.Object({
  apns_dev: Type.Array(Type.String()), apns_live: Type.Array(Type.String()), c2dm: Type.Array(Type.String()), gcm: Type.Array(Type.String()),
}, { ...closed, description: 'push tokens by kind' });

export const userFields = {
  user_id: Type.String(),
  username: Type.String(),
  name: Type.String(),
  display_name: Type.String(),
  bio: Type.String(),
  website: Type.String(),
  timezone: Type.String({ description: 'an IANA zone name' }),
  timezone_offset: Type.String({ pattern: '^[+-]\\d{4}$', description: '+hhmm or -hhmm, now' }),
  profile_image: Type.String(),
  is_anonymous: Bit,
  has_custom_username: Bit,
  has_push_token: Bit,
  public_location: Bit,
  public_geonotes: Bit,
  public_geonote_email: Bit,
  email: Type.String(),
  phone: Type.String(),
  twitter: Type.String(),
  facebook: Type.String(),
  extra: Extra,
  devices: Devices,
  key: Type.Optional(Type.String({ description: 'the application\'s own key for the user, when it gave one' })),
};
export const User = Type.Object(userFields, { ...closed, description: 'A user record (seed "User"; reference §4.6)' });

export const tokenFields = {
  access_token: Type.String(),
  expires_in: Type.Integer({ description: 'seconds the access token lives (0: it does not expire)' }),
  scope: Type.Null(),
};
export const userTokenFields = {
  ...tokenFields,
  refresh_token: Type.String({ description: 'redeem with oauth/token grant_type=refresh_token' }),
};

export const layerFields = {
  layer_id: Type.String(),
  type: Type.Union([Type.Literal('normal'), Type.Literal('default')], { description: 'default: the layer every user of the application belongs to' }),
  name: Type.String(),
  description: Type.String(),
  icon: Type.String(),
  url: Type.String(),
  public: Bit,
  public_userlist: Bit,
  trigger_rate_limit: Type.Integer({ description: 'seconds between two firings for one user on this layer' }),
  key: Type.Optional(Type.String()),
  latitude: Type.Optional(Type.Number()),
  longitude: Type.Optional(Type.Number()),
  radius: Type.Optional(Type.Number()),
  extra: Extra,
};
export const Layer = Type.Object({
  ...layerFields,
  subscribed: Type.Optional(Type.Boolean({ description: 'layer/list with a user token: whether the user belongs to it' })),
}, { ...closed, description: 'A layer (reference §4.5)' });

const LonLat = Type.Tuple([Type.Number({ description: 'longitude' }), Type.Number({ description: 'latitude' })]);
const Ring = Type.Array(LonLat, { minItems: 4, description: 'closed: its last position is its first' });
/** A shaped place's geometry (docs/api.md "Shapes"), as stored: positions are [longitude, latitude]. */
export const Geometry = Type.Union([
  Type.Object({ type: Type.Literal('Polygon'), coordinates: Type.Array(Ring, { minItems: 1, description: 'the outer ring, then its holes' }) }, closed),
  Type.Object({ type: Type.Literal('MultiPolygon'), coordinates: Type.Array(Type.Array(Ring, { minItems: 1 }), { minItems: 1 }) }, closed),
  Type.Object({ type: Type.Literal('LineString'), coordinates: Type.Array(LonLat, { minItems: 2 }) }, closed),
], { description: 'GeoJSON (RFC 7946): a Polygon or MultiPolygon, or the line of a corridor (LineString, with `width`)' });
export const shapeFields = {
  geometry: Type.Optional(Type.Unsafe({ $ref: '#/components/schemas/Geometry' })),
  width: Type.Optional(Type.Number({ description: 'a corridor\'s width, metres' })),
};

export const placeFields = {
  place_id: Type.String(),
  layer_id: Type.String(),
  name: Type.String(),
  display_name: Type.String(),
  description: Type.String(),
  latitude: Type.Number({ description: 'the centre; a shaped place\'s is inside it, the centre of the largest circle it holds (a corridor\'s: the middle of its line)' }),
  longitude: Type.Number(),
  radius: Type.Number({ description: 'metres; a shaped place\'s is that largest circle\'s (a corridor\'s: half its width), which scales its leave margin' }),
  ...shapeFields,
  active: Bit,
  time_from: Type.String({ description: 'HH:MM:SS; 00:00:00 to 00:00:00 is all day' }),
  time_to: Type.String(),
  date_from: Type.Optional(Iso),
  date_from_ts: Type.Optional(UnixSeconds),
  date_to: Type.Optional(Iso),
  date_to_ts: Type.Optional(UnixSeconds),
  extra: Extra,
  key: Type.Optional(Type.String()),
  visits: Type.Integer(),
};
export const Place = Type.Object(placeFields, { ...closed, description: 'A place (reference §4.4)' });

export const Trigger = Type.Object({
  trigger_id: Type.String(),
  place_id: Type.Optional(Type.String({ description: 'a place trigger' })),
  layer_id: Type.Optional(Type.String({ description: 'a layer trigger: it acts at every place of the layer' })),
  key: Type.Optional(Type.String()),
  type: Type.Union([Type.Literal('message'), Type.Literal('callback')]),
  trigger_on: Type.Union([Type.Literal('enter'), Type.Literal('leave')]),
  trigger_after: Type.Integer({ description: 'seconds of dwell before it acts; 0 acts at once' }),
  one_time: Bit,
  text: Type.String(),
  url: Type.String(),
  callback_url: Type.Optional(Type.String({ description: 'a callback trigger: the url again' })),
  extra: Extra,
  active: Bit,
  date_from: Type.Optional(Iso),
  date_from_ts: Type.Optional(UnixSeconds),
  date_to: Type.Optional(Iso),
  date_to_ts: Type.Optional(UnixSeconds),
  time_from: Type.Optional(Type.String()),
  time_to: Type.Optional(Type.String()),
  place: Type.Optional(doc('Place')),
}, { ...closed, description: 'A trigger (reference §4.1)' });

export const LocationPoint = Type.Object({
  uuid: Type.String(),
  date: Iso,
  date_ts: UnixSeconds,
  received_at: Type.Optional(Type.String({ description: 'when the service received it, next to the device\'s date' })),
  received_at_ts: Type.Optional(UnixSeconds),
  location: Type.Object({
    position: Type.Object({
      latitude: Type.Number(), longitude: Type.Number(), speed: Type.Number(), altitude: Type.Number(),
      horizontal_accuracy: Type.Number(), vertical_accuracy: Type.Number(), heading: Type.Optional(Type.Number()),
    }, closed),
    type: Type.Literal('point'),
  }, closed),
  raw: Type.Union([Extra, Type.Null()]),
  client: Type.Optional(Extra),
}, { ...closed, description: 'A stored point, as location/last and location/history show it' });

export const Message = Type.Object({
  message_id: Type.String(),
  type: Type.Literal('message'),
  date: Iso,
  date_ts: UnixSeconds,
  text: Type.String(),
  url: Type.String(),
  layer_id: Type.Optional(Type.String()),
  trigger_id: Type.Optional(Type.String({ description: 'sent by a message trigger' })),
  place_id: Type.Optional(Type.String()),
  group_token: Type.Optional(Type.String({ description: 'sent to a group (group/message)' })),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'a group message\'s fields beyond text and url, as posted' })),
  delivered: Bit,
  delivered_ts: Type.Optional(UnixSeconds),
}, { ...closed, description: 'A message to a user\'s phone (reference §4.10); the live stream sends the same' });

const Stamp = { date: Iso, date_ts: UnixSeconds };
const str = Type.String();
/** The JSON POSTed to a callback trigger's url (reference §5); trigger/run answers it too. */
export const CallbackPayload = Type.Object({
  layer: Type.Object({
    layer_id: str, type: str, name: str, description: str, icon: str, public: Bit, public_userlist: Bit, trigger_rate_limit: Type.Integer(), extra: Extra,
    bounds: Type.Union([Type.Object({ ...Bounds.properties, map: Type.String({ description: 'a map link' }) }), Type.Literal(false)]),
    settings: Type.Literal(false), subscription: Type.Literal(false), user_id: Type.String({ description: 'the application\'s id' }),
  }),
  place: Type.Object({
    place_id: str, name: str, display_name: str, description: str, latitude: Type.Number(), longitude: Type.Number(), radius: Type.Number(),
    ...shapeFields, active: Bit, time_from: str, time_to: str, extra: Extra, map: Type.String({ description: 'a map link' }),
  }),
  trigger: Type.Object({
    trigger_id: str, type: str, trigger_on: str, trigger_after: str, one_time: str, extra: Extra,
    place_id: Type.Optional(str), layer_id: Type.Optional(str), text: Type.Optional(str), url: Type.Optional(str), callback_url: Type.Optional(str),
  }),
  triggered_on: Type.Union([Type.Literal('enter'), Type.Literal('leave')]),
  triggered_delay: Type.String({ description: 'seconds of dwell before the firing' }),
  user: Type.Object({ user_id: str, username: str, display_name: str, extra: Extra }, { description: 'the user\'s profile; flags as "0"/"1" strings' }),
  event_id: str,
  ...Stamp,
  location: Type.Object({ ...Stamp, location: Type.Object({ type: Type.Literal('point'), position: Type.Object({ latitude: Type.Number(), longitude: Type.Number() }) }), raw: Type.Union([Extra, Type.Null()]) }),
}, { description: 'The callback payload (reference §5)' });

/** The document's named objects (components.schemas). */
export const DOC_OBJECTS: Record<string, TSchema> = {
  Error: ErrorBody, Paging, Bounds, User, Layer, Place, Geometry, Trigger, LocationPoint, Message, CallbackPayload,
};
