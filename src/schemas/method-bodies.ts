// Success bodies of geonotes, share links, applications and the smaller location, layer, user and
// account methods (issue 32). For the OpenAPI document only, as response-bodies.ts.
import { Type } from '@sinclair/typebox';
import { doc, layerFields } from './response-objects.js';

const Bit = Type.Union([Type.Literal(0), Type.Literal(1)]);
const Iso = Type.String({ description: 'ISO-8601 with the offset of the request\'s zone' });
const UnixSeconds = Type.Integer({ description: 'Unix seconds' });
const Plain = Type.String({ description: 'YYYY-mm-dd hh:mm:ss in the request\'s zone' });
const Extra = Type.Record(Type.String(), Type.Unknown());
const closed = { additionalProperties: false } as const;
const NameId = Type.Object({ name: Type.String(), id: Type.String() }, closed);

// Geonotes (reference §4.2).
export const GeonoteCreated = Type.Object({
  result: Type.Literal('ok'),
  geonote_id: Type.String(),
  place_id: Type.Optional(Type.String({ description: 'with place_name: the place created' })),
  radius: Type.Optional(Type.Number({ description: 'with span_longitude: the radius it gave, metres' })),
}, closed);
const geonoteFields = {
  geonote_id: Type.String(), date_created: Plain, date_created_ts: UnixSeconds, text: Type.String(),
  latitude: Type.Number(), longitude: Type.Number(), radius: Type.Number(), intersection: Type.String(),
  place_id: Type.String(), place_name: Type.String(), from: Type.String({ description: '"[me]" or the sender\'s email' }),
  date_triggered: Type.Optional(Plain), date_triggered_ts: Type.Optional(UnixSeconds),
};
export const Geonote = Type.Object(geonoteFields, closed);
export const GeonoteList = Type.Object({ geonotes: Type.Array(Geonote) }, closed);
export const GeonoteInfo = Type.Object({
  ...geonoteFields,
  place: Type.Object({
    place_id: Type.String(), name: Type.String(), display_name: Type.String(), latitude: Type.Number(), longitude: Type.Number(),
    radius: Type.Number(), locality: NameId, region: NameId, country: NameId, time_from: Type.String(), time_to: Type.String(),
    extra: Extra, visits: Type.Integer(),
  }, closed),
}, closed);

// Share links (reference §4.13).
export const LinkCreated = Type.Object({ link: Type.String(), shortlink: Type.String(), token: Type.String({ description: '7 characters' }) }, closed);
const NullableIso = Type.Union([Iso, Type.Null()]);
const NullableTs = Type.Union([UnixSeconds, Type.Null()]);
export const LinkStats = Type.Object({
  link: Type.Object({
    token: Type.String(), date_created: NullableIso, date_created_ts: NullableTs, date_from: NullableIso, date_from_ts: NullableTs,
    date_to: NullableIso, date_to_ts: NullableTs, time_from: Type.Union([Type.String(), Type.Null()]), time_to: Type.Union([Type.String(), Type.Null()]),
    share_with: Type.String(), description: Type.String(), currently_active: Type.Union([Type.Literal('0'), Type.Literal('1')]),
  }, closed),
  visits: Type.Array(Type.Object({}, { description: 'not recorded: no viewing page is served' })),
}, closed);
export const SharedLast = Type.Union([
  doc('LocationPoint'),
  Type.Object({ locations: Type.Array(Type.Object({ username: Type.String() }, { description: 'a location/last point with its username' })) }, closed),
], { description: 'one token: the point; several (or a leading comma): the list' });
export const ShareInfo = Type.Object({
  profile: Type.Object({
    user_id: Type.String(), username: Type.String(), name: Type.String(), bio: Type.String(), website: Type.String(), timezone: Type.String(),
    timezone_offset: Type.String(), twitter: Type.String(), profile_image: Type.String(), is_anonymous: Bit,
  }, closed),
  share: Type.Object({ description: Type.String(), date_created: Iso, date_from: NullableIso, date_to: NullableIso }, closed),
}, closed);

// Locations.
export const BatchDeleted = Type.Object({ deleted: Type.Integer({ description: 'points deleted' }) }, closed);
export const TrackingProfile = Type.Object({
  profile: Type.Union(['realtime', 'logging', 'adaptive', 'rough', 'off'].map((p) => Type.Literal(p))), date: Iso, date_ts: UnixSeconds,
}, closed);

// Layers.
export const NearbyLayers = Type.Object({ nearby: Type.Array(doc('Layer')) }, closed);
export const LayerSubscription = Type.Object({
  layer_id: Type.String(), active: Bit, date_subscribed: Type.Union([Iso, Type.Null()]),
  settings: Type.Union([Extra, Type.Array(Type.Never())], { description: 'the subscriber\'s meta information; [] when there is none' }),
}, closed);
export const UserClusters = Type.Object({
  clusters: Type.Array(Type.Object({
    bounds: Type.Object({ center: Type.Object({ latitude: Type.Number(), longitude: Type.Number() }, closed), radius: Type.Number() }, closed),
    count: Type.Integer(),
  }, closed)),
  singles: Type.Array(Type.Object({ lat: Type.Number(), lng: Type.Number() }, closed)),
}, closed);

// Users and accounts.
export const SecureDelete = Type.Union([
  Type.Object({ token: Type.String({ description: 'send it back to confirm' }) }, closed),
  Type.Object({ delete: Type.Literal('successful'), status: Type.String() }, closed),
]);
export const Privacy = Type.Object({
  public_location: Type.String(), public_geonotes: Type.String(), public_geonote_email: Type.String(), default_share_expiration: Type.String(),
}, { ...closed, description: 'flags and days, as strings (reference §4.9)' });
export const Connections = Type.Array(Type.Object({
  application_name: Type.String(), application_description: Type.String(), application_url: Type.String(), date_approved: Iso,
}, closed));

// Applications (reference §4.12).
export const ApplicationObject = Type.Object({
  application_id: Type.String(), name: Type.String(), icon: Type.String(), description: Type.String(), date_created: Iso,
  client_id: Type.String(), client_secret: Type.Null({ description: 'stored as a hash only' }), redirect_uri: Type.String(),
  push: Type.Object({ apns_live: Type.Null(), apns_dev: Type.Null(), c2dm_live: Type.Null() }, closed), apns_mode: Type.Null(),
  permissions: Type.Object({
    can_create_accounts: Bit, can_create_anonymous_accounts: Bit, grant_password: Bit,
    permanent_token: Type.Optional(Bit),
  }, closed),
  stats: Type.Optional(Type.Object({ api_hits: Type.Object({ today: Type.Integer(), this_month: Type.Integer() }, closed) }, closed)),
}, closed);
export const ApplicationList = Type.Object({ applications: Type.Array(ApplicationObject) }, closed);
export const ApplicationLayers = Type.Object({
  layers: Type.Array(Type.Object({
    ...layerFields,
    bounds: Type.Union([doc('Bounds'), Type.Literal(false)]),
  }, closed)),
}, closed);
const Series = Type.Object({ name: Type.String(), total: Type.Integer(), monthly: Type.Record(Type.String(), Type.Integer()), daily: Type.Record(Type.String(), Type.Integer()) }, closed);
export const ApplicationUsage = Type.Object({
  usage: Type.Object({
    trigger_callback: Series, trigger_message: Series, message: Series,
    triggers_total: Type.Integer(), messages_total: Type.Integer(), triggers_this_period: Type.Integer(), messages_this_period: Type.Integer(),
  }, closed),
}, closed);

// Broadcasts, device payloads, permanent tokens and API hits (issue 32, second part).
export const BroadcastCounts = Type.Object({
  result: Type.Literal('ok'),
  total: Type.Integer({ description: 'users reached (message/count_broadcast: who would be)' }),
  push: Type.Integer({ description: 'of them, users with a push token' }),
  sms: Type.Integer({ description: 'always 0: no SMS is sent' }),
}, closed);
export const DeviceSent = Type.Object({ result: Type.Literal('ok'), username: Type.String(), user_id: Type.String() }, closed);
export const PermanentToken = Type.Object({
  access_token: Type.String(), expires_in: Type.Literal(0, { description: '0: never expires' }), scope: Type.Null(),
  user_id: Type.String(), username: Type.String(), display_name: Type.String(), is_anonymous: Bit,
}, closed);
export const ApiHits = Type.Object({
  api_hits: Type.Object({
    today: Type.Integer(), this_month: Type.Integer(), total: Type.Integer({ description: 'over the days kept (the last 400)' }),
    daily: Type.Record(Type.String(), Type.Integer(), { description: 'YYYY-mm-dd (UTC) → hits, the last 90 days' }),
    monthly: Type.Record(Type.String(), Type.Integer(), { description: 'YYYY-mm-01 → hits' }),
  }, closed),
}, closed);
