// Stored document shapes: the one place that says what each collection holds (this file: the API's
// own objects; the engine's and the other method groups' are in the documents-*.ts files beside
// it, re-exported here; firings and their delivery are typed in firings.ts). Times are epoch
// milliseconds; ids are short opaque strings (see ids.ts); `_id` is the public id.

export type * from './documents-engine.js';
export type * from './documents-features.js';

export type Flag = 0 | 1;
export type Extra = Record<string, unknown>;

export interface ApplicationDoc {
  _id: string;
  name: string;
  client_id: string;
  /** SHA-256 hex of the API secret. */
  client_secret_hash: string;
  /** `whsec_<base64>`: kept in clear because it signs callbacks (HMAC needs the key). */
  webhook_secret: string;
  /** The secret a rotation replaced: callbacks carry its signature too until `previous_webhook_secret_until` (epoch ms). */
  previous_webhook_secret?: string;
  previous_webhook_secret_until?: number;
  default_layer_id: string;
  /** Keep every point in location history (the historical API made it opt-in). */
  store_history: boolean;
  /** Where /oauth/authorize may send the application's users back (exact match); absent: none. */
  redirect_uris?: string[];
  /** Pre-approved by the operator for account/permanent_token (reference §4.9): never-expiring user tokens. */
  permanent_tokens?: boolean;
  /** Callbacks to one URL sent together in one POST, at most (delivery/batch-round.ts); absent or 1: one per POST. */
  callback_batch_max?: number;
  created_at: number;
}

export interface UserDoc {
  _id: string;
  app_id: string;
  username: string;
  /** `${app_id}:${lowercased username}`: unique. */
  uniq_username: string;
  /** `${app_id}:${key}` when the user has a key: unique, sparse. */
  uniq_key?: string;
  /** `${app_id}:${lowercased email}` when set: unique, sparse. */
  uniq_email?: string;
  key?: string;
  email?: string;
  password_hash?: string;
  name: string;
  display_name: string;
  bio: string;
  website: string;
  timezone: string;
  profile_image: string;
  phone: string;
  twitter: string;
  facebook: string;
  is_anonymous: Flag;
  has_custom_username: Flag;
  public_location: Flag;
  public_geonotes: Flag;
  public_geonote_email: Flag;
  extra: Extra;
  devices: { apns_dev: string[]; apns_live: string[]; c2dm: string[]; gcm: string[] };
  /** location/tracking_profile: the profile asked for, and when (epoch ms); absent until set. */
  tracking_profile?: { profile: TrackingProfile; date: number };
  /** account/privacy's share default (days; 0 = never expire); absent = 0. */
  default_share_expiration?: number;
  created_at: number;
}

export type TrackingProfile = 'realtime' | 'logging' | 'adaptive' | 'rough' | 'off';

export type TokenKind = 'app' | 'user' | 'refresh';

export interface TokenDoc {
  /** SHA-256 hex of the token: the token itself is never stored. */
  _id: string;
  kind: TokenKind;
  app_id: string;
  user_id?: string;
  /** null: never expires. */
  expires_at: number | null;
  created_at: number;
}

/** An OAuth authorization code (/oauth/authorize): single use, short-lived. */
export interface AuthCodeDoc {
  /** SHA-256 hex of the code. */
  _id: string;
  app_id: string;
  user_id: string;
  redirect_uri: string;
  /** Whether the authorize request named redirect_uri (then the token request must repeat it). */
  redirect_uri_sent: boolean;
  /** PKCE (RFC 7636), when the authorize request sent a challenge. */
  code_challenge?: string;
  code_challenge_method?: 'S256' | 'plain';
  /** Set once exchanged: a second exchange is refused and withdraws `token_ids`. */
  used: boolean;
  /** The tokens issued for it (SHA-256 hex ids in `tokens`). */
  token_ids?: string[];
  expires_at: number;
  created_at: number;
}

export interface LayerDoc {
  _id: string;
  app_id: string;
  type: 'default' | 'normal';
  name: string;
  key?: string;
  /** `${app_id}:${key}`: unique, sparse. */
  uniq_key?: string;
  description: string;
  icon: string;
  url: string;
  public: Flag;
  public_userlist: Flag;
  /** Seconds between two firings of one trigger for one user; 0 = none. */
  trigger_rate_limit: number;
  latitude?: number;
  longitude?: number;
  radius?: number;
  extra: Extra;
  created_at: number;
}

/** Validity windows shared by places and triggers. */
export interface Windowed {
  date_from?: number;
  date_to?: number;
  /** `HH:MM:SS`, in the user's timezone; absent = all day. */
  time_from?: string;
  time_to?: string;
}

export interface PlaceDoc extends Windowed {
  _id: string;
  app_id: string;
  layer_id: string;
  key?: string;
  /** `${app_id}:${layer_id}:${key}`: unique, sparse. */
  uniq_key?: string;
  name: string;
  description: string;
  /** A circle's centre, or a shaped place's (inside it; src/geo/shape-centre.ts). */
  latitude: number;
  longitude: number;
  /** A circle's radius, or a shaped place's: the largest circle inside it, which scales its margin. */
  radius: number;
  /** A polygon or corridor place's shape, as checked by src/geo/geometry.ts; absent for a circle. */
  geometry?: PlaceGeometryDoc;
  /** A corridor's width, metres (with a LineString geometry only). */
  width?: number;
  extra: Extra;
  created_at: number;
  /** Visits counted by the trigger engine; absent until the first one. */
  visits?: number;
}

/** GeoJSON (RFC 7946), positions as [longitude, latitude]: the same shape as src/geo/geometry.ts's PlaceGeometry. */
export type PlaceGeometryDoc =
  | { type: 'Polygon'; coordinates: Array<Array<[number, number]>> }
  | { type: 'MultiPolygon'; coordinates: Array<Array<Array<[number, number]>>> }
  | { type: 'LineString'; coordinates: Array<[number, number]> };

export interface TriggerDoc extends Windowed {
  _id: string;
  app_id: string;
  /** Set for a trigger on one place; absent for a layer trigger. */
  place_id?: string;
  /** The layer of the place, or the layer the trigger is attached to. */
  layer_id: string;
  /** true when attached to a whole layer (`layer_id` given at creation). */
  on_layer: boolean;
  key?: string;
  /** `${app_id}:${key}`: unique, sparse. */
  uniq_key?: string;
  type: 'message' | 'callback';
  trigger_on: 'enter' | 'leave';
  /** Dwell seconds; 0 = fire on entering. */
  trigger_after: number;
  one_time: Flag;
  text: string;
  url: string;
  extra: Extra;
  created_at: number;
}

export interface SubscriptionDoc {
  /** `${layer_id}:${user_id}` */
  _id: string;
  app_id: string;
  layer_id: string;
  user_id: string;
  date_subscribed: number;
  /** layer/subscription/:id POST: the subscriber's meta information, a free hash. */
  settings?: Extra;
}

export interface MessageDoc {
  _id: string;
  app_id: string;
  user_id: string;
  text: string;
  url: string;
  layer_id?: string;
  trigger_id?: string;
  place_id?: string;
  /** Set for messages produced by a trigger firing (idempotency with the outbox). */
  event_id?: string;
  date: number;
  /** When the phone's live stream took it; absent while queued. */
  delivered_at?: number;
  /** When the push providers were handed it; absent until then (a replay pushes again). */
  pushed_at?: number;
  /** A message to a group (group/message): the group's token. */
  group_token?: string;
  /** A group message's fields beyond text and url, as posted (reference §4.7). */
  data?: Extra;
}
