// What each method answers with on success, built from the objects of response-objects.ts. For
// the OpenAPI document only (see there): routes name theirs in `config.docs` (http/openapi.ts).
import { Type, type TSchema } from '@sinclair/typebox';
import { doc, layerFields, placeFields, shapeFields, tokenFields, userFields, userTokenFields } from './response-objects.js';
import { Boundary, TimelineEntry } from './timeline.js';
import { deliveryFields, Late, receivedFields } from './firing-forensics.js';

const Bit = Type.Union([Type.Literal(0), Type.Literal(1)]);
const Iso = Type.String({ description: 'ISO-8601 with the offset of the request\'s zone' });
const UnixSeconds = Type.Integer({ description: 'Unix seconds' });
const Stamp = { date: Iso, date_ts: UnixSeconds };
const LatLng = Type.Object({ latitude: Type.Number(), longitude: Type.Number() });
const Extra = Type.Record(Type.String(), Type.Unknown());
const closed = { additionalProperties: false } as const;
const paged = (name: string, item: TSchema) => Type.Object({ [name]: Type.Array(item), paging: doc('Paging') }, closed);

export const ResultOk = Type.Object({ result: Type.Literal('ok') }, closed);
export const ResponseOk = Type.Object({ response: Type.Literal('ok') }, closed);
/** location/update: `profile` once location/tracking_profile set one (the Android SDK switches to it). */
export const LocationUpdated = Type.Object({
  response: Type.Literal('ok'),
  profile: Type.Optional(Type.Union(['realtime', 'logging', 'adaptive', 'rough', 'off'].map((p) => Type.Literal(p)))),
}, closed);
export const Deleted = Type.Object({ deleted: Type.String({ description: 'the id of what was deleted' }) }, closed);

// Users, accounts and tokens.
export const UserCreated = Type.Object({
  display_name: Type.String(), username: Type.String(), user_id: Type.String(), is_anonymous: Bit,
  key: Type.Optional(Type.String()), ...userTokenFields, extra: Extra,
}, { ...closed, description: 'The new user (or, for a known key with the secret, that user) and a user token' });
export const NamedUserCreated = Type.Object({ ...userFields, ...userTokenFields }, { ...closed, description: 'The user record and a user token' });
export const TokenGranted = Type.Object({
  ...tokenFields,
  refresh_token: Type.Optional(Type.String({ description: 'user tokens only' })),
  user_id: Type.Optional(Type.String({ description: 'user tokens only' })),
  username: Type.Optional(Type.String()),
  display_name: Type.Optional(Type.String()),
  is_anonymous: Type.Optional(Bit),
}, { ...closed, description: 'An application token (client_credentials) or a user token with its refresh token (password, refresh_token)' });
/** user/list: with `q` or `sort`, each user also says when their last point was taken (null: never). */
export const UserList = paged('users', Type.Object({
  ...userFields,
  last_location: Type.Optional(Type.Union([Type.Object(Stamp, closed), Type.Null()], { description: 'with q or sort: the device time of the user\'s last point (UTC)' })),
}, { ...closed, description: 'A user record (seed "User")' }));
export const ProfileUpdated = Type.Object({ result: Type.Literal('ok'), ...userFields }, closed);
export const Username = Type.Object({ username: Type.String() }, closed);
export const UsernameCheck = Type.Object({
  username: Type.Union([Type.Literal('available'), Type.Literal('unavailable')]),
  reason: Type.Optional(Type.Union([Type.Literal('invalid'), Type.Literal('taken')])),
}, closed);

// Layers.
export const LayerDetail = Type.Object({
  ...layerFields,
  bounds: Type.Union([doc('Bounds'), Type.Literal(false)], { description: 'false when the layer has no place' }),
  num_places: Type.Integer(),
  num_valid_places: Type.Optional(Type.Integer({ description: 'with count_valid_places=1' })),
  places: Type.Optional(Type.Array(doc('Place'), { description: 'with include_places=1 or include_valid_places=1' })),
}, { ...closed, description: 'layer/info: the layer with its bounds and place counts' });
export const LayerList = Type.Object({ layers: Type.Array(doc('Layer')) }, closed);
export const Subscribed = Type.Object({ subscribed: Type.Literal('1'), date_subscribed: Type.String({ description: 'YYYY-mm-dd hh:mm:ss in the request\'s zone' }) }, closed);
export const Unsubscribed = Type.Object({ subscribed: Type.Literal('0') }, closed);
export const LayerUsers = Type.Object({
  users: Type.Record(Type.String(), Type.Object({
    user_id: Type.String(), username: Type.String(), name: Type.String(), display_name: Type.String(), bio: Type.String(), website: Type.String(),
    timezone: Type.String(), twitter: Type.Union([Type.String(), Type.Literal(false)]), profile_image: Type.String(), is_anonymous: Bit,
    has_custom_username: Bit, has_push_token: Bit, public_location: Bit, public_geonotes: Bit, public_geonote_email: Bit,
    timezone_offset: Type.String(), extra: Extra,
    inside: Type.Array(Type.Object({ place_id: Type.String(), ...Stamp }, closed)),
  }, closed), { description: 'by user_id: the users inside a place of the layer' }),
  places: Type.Record(Type.String(), Type.Object({
    place: Type.Object({
      place_id: Type.String(), name: Type.String(), latitude: Type.Number(), longitude: Type.Number(), radius: Type.Number(), ...shapeFields,
      display_name: Type.String(), active: Bit, extra: Extra, description: Type.String(), visits: Type.Integer(),
    }, closed),
    users_inside: Type.Array(Type.Object({ user_id: Type.String(), ...Stamp }, closed)),
  }, closed), { description: 'by place_id: every place of the layer and who is inside' }),
}, { ...closed, description: 'layer/users (reference §6.9)' });

// Places and triggers.
export const PlaceList = paged('places', doc('Place'));
export const NearbyPlaces = paged('places', Type.Object({
  ...placeFields, distance: Type.Number({ description: 'metres from the point to the place\'s centre' }),
}, closed));
export const TriggerList = paged('triggers', doc('Trigger'));

const Delivery = Type.Object(deliveryFields, closed);
export const TriggerRun = Type.Union([
  Type.Object({
    result: Type.Union([Type.Literal('sent'), Type.Literal('queued')], { description: 'sent: a live stream took it' }),
    type: Type.Literal('message'), message: Type.String(), event_id: Type.String(), message_id: Type.String(), user_id: Type.String(),
    payload: doc('CallbackPayload'),
  }, closed),
  Type.Object({
    result: Type.Union([Type.Literal('sent'), Type.Literal('queued'), Type.Literal('failed')]),
    type: Type.Literal('callback'), url: Type.String(), event_id: Type.String(), delivery: Delivery, payload: doc('CallbackPayload'),
  }, closed),
], { description: 'The trigger acted now: the message sent, or the callback POSTed (one attempt; retries follow the usual schedule)' });
export const TriggerHistory = paged('history', Type.Object({
  event_id: Type.String(), ...Stamp, display_date: Type.String(), ...receivedFields, user_id: Type.String(),
  type: Type.String(), triggered_on: Type.String(), triggered_delay: Type.String(),
  late: Type.Optional(Late),
  run: Type.Optional(Type.Literal(1, { description: 'fired by trigger/run' })),
  gated: Type.Optional(Type.Literal(true, { description: 'include_gated=1 only: the gates stopped this firing, nothing was sent' })),
  gate: Type.Optional(Type.Union(['date_window', 'time_window', 'rate_limit', 'one_time_spent', 'trigger_inactive'].map((g) => Type.Literal(g)))),
  delivery: Type.Optional(Delivery),
  trigger: Type.Object({ trigger_id: Type.String() }, { description: 'the trigger, or only its id once deleted' }),
  place: Type.Object({ place_id: Type.String() }, { description: 'the place, or only its id once deleted' }),
  layer: Type.Object({ layer_id: Type.String() }, { description: 'the layer with its bounds, or only its id once deleted' }),
}, closed));

const NullableStamp = Type.Union([Type.Object(Stamp, closed), Type.Null()]);
const PointSeen = Type.Object({ ...Stamp, latitude: Type.Number(), longitude: Type.Number(), horizontal_accuracy: Type.Number() }, closed);
const Machine = Type.Object({
  user_id: Type.String(), trigger_id: Type.String(), place_id: Type.String(),
  state: Type.String({ description: 'outside, inside, dwelling…' }),
  since: Type.Optional(NullableStamp), entered_at: Type.Optional(NullableStamp), dwell_deadline: Type.Optional(NullableStamp),
  last_point: Type.Optional(Type.Union([PointSeen, Type.Null()])),
  transitions: Type.Optional(Type.Array(Type.Object({
    from: Type.String(), to: Type.String(), reason: Type.String(), outcome: Type.Union([Type.String(), Type.Null()]), ...Stamp,
  }, closed))),
  distance_m: Type.Optional(Type.Number()),
  boundary: Type.Optional(Boundary),
  zone: Type.Optional(Type.String()),
  explanation: Type.Optional(Type.String({ description: 'why a user is outside' })),
  explanation_code: Type.Optional(Type.String({
    description: 'no_location, not_subscribed, trigger_expired, trigger_not_started, place_date_window, zone_out, zone_band, zone_unusable, zone_in or trigger_deleted',
  })),
  trigger_key: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'the trigger\'s key (null: none, or deleted)' })),
  place_name: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'the place\'s name (null: deleted)' })),
  timeline: Type.Optional(Type.Array(TimelineEntry, { description: 'the pair\'s most recent decisions, newest first (with user_id)' })),
}, { ...closed, description: 'One user\'s trigger machine at one place' });
export const TriggerState = Type.Object({
  trigger_id: Type.String(), user_id: Type.Optional(Type.String()),
  deleted: Type.Optional(Type.Literal(true, { description: 'the trigger was deleted; its pairs are shown from the timeline while it keeps them' })),
  machines: Type.Array(Machine),
}, closed);
export const UserMachines = Type.Object({
  user_id: Type.String(), last_location: Type.Union([PointSeen, Type.Null()]), machines: Type.Array(Machine),
  paging: Type.Optional(doc('Paging')),
}, { ...closed, description: 'the user\'s machines that are not outside; with include_outside=1 every pair of the user\'s layers, paged' });

// Locations and messages.
export const LocationHistory = Type.Object({
  points: Type.Array(doc('LocationPoint')),
  distance: Type.Number({ description: 'metres along the points' }),
  timerange: Type.Union([Type.Object({ from: Iso, from_ts: UnixSeconds, to: Iso, to_ts: UnixSeconds }, closed), Type.Null()]),
  bounds: Type.Union([Type.Object({ sw: LatLng, ne: LatLng }, closed), Type.Null()]),
  batch: Type.Optional(Type.String({ description: 'with batch=true: the id location/delete_batch/:id takes' })),
}, closed);
export const MessageSent = Type.Object({ result: Type.Literal('ok'), username: Type.String(), user_id: Type.String(), message_id: Type.String() }, closed);
export const MessageList = paged('messages', doc('Message'));

// Applications (the operator API).
const appFields = { application_id: Type.String(), name: Type.String(), client_id: Type.String(), default_layer_id: Type.String() };
const RedirectUris = Type.Array(Type.String(), { description: 'where /oauth/authorize may send users back' });
const CallbackBatchMax = Type.Integer({ minimum: 1, maximum: 100, description: 'callbacks to one URL sent together in one POST, at most (1: one event per POST)' });
export const Application = Type.Object({
  ...appFields, store_history: Bit, redirect_uris: RedirectUris, callback_batch_max: CallbackBatchMax, date_created: Type.String(),
  permanent_tokens: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)], { description: '1: pre-approved for account/permanent_token' })),
}, closed);
export const ApplicationCreated = Type.Object({
  ...appFields, redirect_uris: RedirectUris, client_secret: Type.String(), access_token: Type.String(), webhook_secret: Type.String(),
}, { ...closed, description: 'The secret is shown only here and on rotation' });
export const ApplicationList = Type.Object({ applications: Type.Array(Application) }, closed);
export const SecretRotated = Type.Object({
  application_id: Type.String(), client_id: Type.String(), client_secret: Type.String(), access_token: Type.String(), webhook_secret: Type.String(),
  previous_webhook_secret_expires_at: Type.Union([Type.String(), Type.Null()], { description: 'until when callbacks also carry a signature with the replaced secret' }),
}, closed);
