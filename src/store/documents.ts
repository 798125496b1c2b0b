// Stored document shapes: the one place that says what each collection holds.
// Times are epoch milliseconds; ids are short opaque strings (see ids.ts); `_id` is the public id.

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
  latitude: number;
  longitude: number;
  radius: number;
  extra: Extra;
  created_at: number;
  /** Visits counted by the trigger engine; absent until the first one. */
  visits?: number;
}

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

// Delivery (src/delivery/): the outbox, every attempt, and the history of firings.

/** Where a callback (outbox row) or a trigger's message stands. */
export type DeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'dead';

/** One callback to send; `_id` is the event id, so a replayed firing inserts nothing twice. */
export interface OutboxDoc {
  _id: string;
  app_id: string;
  trigger_id: string;
  user_id: string;
  place_id: string;
  layer_id: string;
  /**
   * The trigger's callback URL: copied at firing time, and changed with the trigger's until
   * delivered (delivery/queued-callbacks.ts). Each round sends to the trigger's URL of the moment.
   */
  url: string;
  /**
   * The JSON body exactly as sent: serialised once when the row is written, so every attempt sends
   * (and signs) the same bytes, and updating the row's state does not copy a payload object. Rows
   * written before this was a string hold the object itself; it is serialised per attempt.
   * Removed once delivered: nothing reads it after that, and it would otherwise keep ~2 kB per
   * callback on disk until retention.
   */
  payload?: string | Record<string, unknown>;
  status: DeliveryStatus;
  /**
   * HTTP attempts made so far. Every one that did not deliver is in delivery_attempts; the one that
   * delivered is this row's outcome (delivered_at, last_status, last_duration_ms).
   */
  attempts: number;
  /** Dispatch rounds started (the long schedule counts rounds; a round may hold short retries). */
  rounds: number;
  /** Epoch ms when the row is due; while leased, when the lease runs out. */
  next_attempt_at: number;
  /** Epoch ms until which a dispatcher owns the row; 0 when not leased. */
  lease_until: number;
  /** Random id of the lease holder: its final write only lands if it still holds the lease. */
  lease_owner?: string;
  last_error?: string;
  last_status?: number;
  created_at: number;
  updated_at: number;
  /** When the delivering attempt came back (its entry in the delivery log). */
  delivered_at?: number;
  /** How long the delivering attempt took (ms). */
  last_duration_ms?: number;
}

/** One HTTP attempt of one callback that did not deliver, kept for the delivery log. */
export interface DeliveryAttemptDoc {
  _id: string;
  event_id: string;
  app_id: string;
  /** 1-based, counts HTTP attempts of this event. */
  attempt: number;
  at: number;
  duration_ms: number;
  /** HTTP status when a response came back. */
  status_code?: number;
  /** Error class and text when none did (timeout, reset, refused, blocked). */
  error?: string;
  outcome: 'delivered' | 'retry' | 'dead';
}

/** One firing (trigger/history), `_id` = event id; `delivery` follows the outbox or the message. */
export interface TriggerHistoryDoc {
  _id: string;
  app_id: string;
  user_id: string;
  trigger_id: string;
  place_id: string;
  layer_id: string;
  type: 'message' | 'callback';
  triggered_on: 'enter' | 'leave';
  delay_s: number;
  /** Epoch ms of the firing. */
  date: number;
  /** Set for firings made by trigger/run. */
  run?: boolean;
  /** Set for a firing the gates stopped (machines/README.md "gated"): nothing was sent, so no `delivery`. */
  gate?: 'date_window' | 'time_window' | 'rate_limit' | 'one_time_spent' | 'trigger_inactive';
  delivery?: { status: DeliveryStatus; attempts: number; last_error?: string; updated_at: number };
}

/** A stored point (history, when the application keeps it) or a user's last point (`_id` = user id). */
export interface LocationDoc {
  _id: string;
  app_id: string;
  user_id: string;
  uuid: string;
  /** Device time. */
  date: number;
  latitude: number;
  longitude: number;
  horizontal_accuracy: number;
  speed?: number;
  altitude?: number;
  heading?: number;
  vertical_accuracy?: number;
  raw: Record<string, unknown> | null;
  client?: Record<string, unknown>;
  received_at: number;
}

/**
 * One decision of the engine for a (user, trigger, place): a transition, a firing, a gated firing,
 * or a point that changed nothing but is worth showing (machines/README.md "Timeline").
 * `_id` sorts by time (`at`, zero-padded, first).
 */
export interface TimelineDoc {
  _id: string;
  app_id: string;
  user_id: string;
  trigger_id: string;
  place_id: string;
  layer_id: string | null;
  kind: 'transition' | 'fired' | 'gated' | 'point';
  event: 'enter' | 'leave' | 'dwell' | null;
  from: 'outside' | 'inside' | 'dwelling' | 'firedOnce' | null;
  to: 'outside' | 'inside' | 'dwelling' | 'firedOnce' | null;
  gate: 'date_window' | 'time_window' | 'rate_limit' | 'one_time_spent' | 'trigger_inactive' | null;
  note: 'band' | 'unusable_accuracy' | 'stale_point' | 'dwell_too_short' | null;
  /** The point behind it (device time); null for a clock tick. */
  point: { date: number; latitude: number; longitude: number; horizontal_accuracy: number | null } | null;
  zone: 'in' | 'out' | 'band' | 'unusable' | null;
  distance_m: number | null;
  /** The firing's event id (trigger/history, callbacks), for a `fired` entry. */
  firing_id: string | null;
  /** When it happened, epoch ms: the point's device time, or the tick's (a dwell deadline). */
  at: number;
}

/** The persisted machine of one (user, trigger, place) that is not outside; `_id` = `${user}:${trigger}:${place}`. */
export interface MachineStateDoc {
  _id: string;
  app_id: string;
  user_id: string;
  trigger_id: string;
  place_id: string;
  /** Mirrors record.state / record.deadline so they can be queried. */
  state: 'inside' | 'dwelling' | 'firedOnce';
  deadline?: number;
  record: import('../../machines/types.js').PairRecord;
  /** The point that last moved this machine. */
  last_point?: { date: number; latitude: number; longitude: number; horizontal_accuracy: number };
  updated_at: number;
}

/**
 * A geonote (reference §4.2): a one-time message trigger on a place of the user's own "Geonotes"
 * layer, which only that user is subscribed to, so the engine fires it for them alone.
 */
export interface GeonoteDoc {
  _id: string;
  app_id: string;
  user_id: string;
  trigger_id: string;
  /** The place the trigger is on (on the user's Geonotes layer). */
  place_id: string;
  /** The place the note was left at when `place_id` named an existing one (copied onto the layer). */
  origin_place_id?: string;
  text: string;
  /** `[me]` or the sender's email. */
  from: string;
  from_name?: string;
  date_created: number;
  /** When its message was found delivered; stamped on the first read after that. */
  date_triggered?: number;
}

/** A share link (reference §4.13); `_id` is the 7-character token. */
export interface ShareLinkDoc {
  _id: string;
  app_id: string;
  user_id: string;
  description: string;
  share_with: string;
  date_from?: number;
  date_to?: number;
  time_from?: string;
  time_to?: string;
  status: 'active' | 'inactive' | 'expired';
  created_at: number;
}

/** The points one location/history?batch=true answered, for location/delete_batch/:id. */
export interface LocationBatchDoc {
  /** 40 hex characters, as the reference's example. */
  _id: string;
  app_id: string;
  user_id: string;
  point_ids: string[];
  created_at: number;
  /** When location/delete_batch removed them; a second call answers 304. */
  deleted_at?: number;
}

// Groups (reference §4.7): real-time groups of users, their members and their messages.

export type GroupVisibility = 'public' | 'open' | 'invite';
export type GroupPublishAccess = 'open' | 'closed';

export interface GroupDoc {
  /** The group token: a capability (open groups are readable by whoever has it), so long and random. */
  _id: string;
  app_id: string;
  /** The user who created it with their user token; absent when the application did. */
  owner_id?: string;
  title: string;
  description: string;
  visibility: GroupVisibility;
  publish_access: GroupPublishAccess;
  date_created: number;
}

/** `publishing` members' locations and messages go to the group; `subscribed` ones only watch it. */
export type GroupMembership = 'publishing' | 'subscribed';

export interface GroupMemberDoc {
  /** `${group token}:${user_id}` */
  _id: string;
  app_id: string;
  group_token: string;
  user_id: string;
  membership: GroupMembership;
  date_joined: number;
}

export interface GroupMessageDoc {
  _id: string;
  app_id: string;
  group_token: string;
  /** The user who posted it with their token; absent when the application did. */
  user_id?: string;
  /** Every field posted but `push` and the credentials. */
  message: Extra;
  date: number;
}

/** A message/device payload (reference §4.10): kept for the user's live stream until taken or `expires_at`. */
export interface DeviceMessageDoc {
  _id: string;
  app_id: string;
  user_id: string;
  layer_id?: string;
  data: Record<string, unknown>;
  date: number;
  expires_at: number;
}

/** One process's API hits of one application on one UTC day; `_id` = `${app_id}:${day}:${node}`. */
export interface ApiHitsDoc {
  _id: string;
  app_id: string;
  /** `YYYY-mm-dd`, UTC. */
  day: string;
  hits: number;
}
