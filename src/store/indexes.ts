// Every collection and every index, declared once; both engines create them at start.
//
// DOCUMENT_TABLES: the collections of cold objects, read and written through typed repositories
// (repos/): the fields their queries read (generated columns on SQLite, sqlite/doc-table.ts) and
// their indexes, created by both engines. TYPED_INDEXES: the hot collections kept as plain tables
// with columns (typed repositories too): each declares its SQLite table and indexes with their
// migrations (sqlite/tables.ts), their MongoDB indexes are here.
import type { IndexDescription } from 'mongodb';

export interface TableShape {
  /** Top-level fields the repository's queries read. */
  fields: readonly string[];
  /** Field order matters for MongoDB; `sparse`: documents without the fields are not indexed. */
  indexes: ReadonlyArray<{ on: readonly string[]; unique?: boolean; sparse?: boolean }>;
}

export const DOCUMENT_TABLES = {
  applications: { fields: ['client_id', 'created_at'], indexes: [{ on: ['client_id'], unique: true }] },
  // Tokens are found by their hash (`_id`); revocations reach an application's or a user's.
  tokens: { fields: ['app_id', 'user_id', 'kind'], indexes: [{ on: ['user_id'] }, { on: ['app_id'] }] },
  // Authorization codes (services/auth-codes.ts); retention sweeps the expired ones by `expires_at`.
  oauth_codes: { fields: ['app_id', 'used', 'expires_at'], indexes: [{ on: ['app_id'] }, { on: ['expires_at'] }] },
  // The API-hit counters each process flushes (services/api-hits.ts).
  api_hits: { fields: ['app_id', 'day'], indexes: [{ on: ['app_id', 'day'] }] },
  // Usernames, emails and keys are unique per application through `uniq_*` (`${app_id}:${value}`).
  users: {
    fields: ['app_id', 'created_at', 'uniq_username', 'uniq_key', 'uniq_email'],
    indexes: [
      { on: ['app_id', 'created_at'] },
      { on: ['uniq_username'], unique: true },
      { on: ['uniq_key'], unique: true, sparse: true },
      { on: ['uniq_email'], unique: true, sparse: true },
    ],
  },
  // Layers, places and triggers: an application's, a layer's and a place's, oldest first; keys unique
  // per application (a place's per layer) through `uniq_key`.
  layers: {
    fields: ['app_id', 'created_at', 'uniq_key', 'public', 'latitude', 'trigger_rate_limit'],
    indexes: [{ on: ['app_id', 'created_at'] }, { on: ['uniq_key'], unique: true, sparse: true }],
  },
  places: {
    fields: ['app_id', 'layer_id', 'created_at', 'uniq_key', 'name', 'visits'],
    indexes: [{ on: ['app_id'] }, { on: ['layer_id', 'created_at'] }, { on: ['uniq_key'], unique: true, sparse: true }],
  },
  triggers: {
    fields: ['app_id', 'place_id', 'layer_id', 'on_layer', 'created_at', 'uniq_key'],
    indexes: [{ on: ['app_id'] }, { on: ['place_id'] }, { on: ['layer_id', 'created_at'] }, { on: ['uniq_key'], unique: true, sparse: true }],
  },
  subscriptions: {
    fields: ['app_id', 'layer_id', 'user_id', 'date_subscribed'],
    indexes: [{ on: ['user_id'] }, { on: ['layer_id'] }],
  },
  // Geonotes, share links and history batches (services/geonotes.ts, share-links.ts, location-batches.ts).
  geonotes: { fields: ['app_id', 'user_id', 'date_created'], indexes: [{ on: ['user_id', 'date_created'] }] },
  share_links: { fields: ['app_id', 'user_id'], indexes: [{ on: ['user_id'] }] },
  location_batches: { fields: ['app_id', 'user_id'], indexes: [{ on: ['user_id'] }] },
  // Groups (reference §4.7): an application's groups, a user's memberships, a group's members and messages.
  groups: { fields: ['app_id', 'date_created', 'owner_id'], indexes: [{ on: ['app_id', 'date_created'] }, { on: ['owner_id'], sparse: true }] },
  group_members: {
    fields: ['app_id', 'group_token', 'user_id', 'date_joined', 'membership'],
    indexes: [{ on: ['group_token', 'date_joined'] }, { on: ['user_id'] }],
  },
  group_messages: { fields: ['app_id', 'group_token', 'user_id', 'date'], indexes: [{ on: ['group_token', 'date'] }] },
} satisfies Record<string, TableShape>;

export type DocumentTableName = keyof typeof DOCUMENT_TABLES;

export type TypedCollectionName = 'locations' | 'last_locations' | 'machine_states' | 'trigger_timeline' | 'firings' | 'delivery_attempts' | 'messages' | 'device_messages';

/** The MongoDB indexes of the collections with typed repositories, created as each opens. */
export const TYPED_INDEXES: Record<TypedCollectionName, readonly IndexDescription[]> = {
  // A user's points by time; the same key makes a repeat of a stored point a duplicate, and so does
  // a uuid the phone sent again. `date`: the retention sweep (HISTORY_RETENTION_DAYS).
  locations: [
    { key: { user_id: 1, date: 1, latitude: 1, longitude: 1, horizontal_accuracy: 1 }, unique: true },
    { key: { user_id: 1, uuid: 1 }, unique: true, partialFilterExpression: { own_uuid: true } },
    { key: { date: 1 } },
  ],
  last_locations: [{ key: { app_id: 1 } }],
  // A trigger's machines (trigger/state), a place's (layer/users), a user's.
  machine_states: [{ key: { user_id: 1 } }, { key: { trigger_id: 1 } }, { key: { place_id: 1 } }],
  // A user's entries by time, one pair's by time (the per-pair cap and trigger/state). The
  // retention sweep reads ids, which start with the time.
  trigger_timeline: [{ key: { user_id: 1, at: 1 } }, { key: { user_id: 1, trigger_id: 1, place_id: 1, at: 1 } }],
  // Firings with their delivery (store/firings.ts): the outbox's due callbacks (only those still to
  // be sent are in it), trigger/history's pages by application, user and place, retention by date
  // and the dead callbacks still keeping their payload.
  firings: [
    { key: { next_attempt_at: 1, seq: 1 }, partialFilterExpression: { next_attempt_at: { $exists: true } } },
    { key: { app_id: 1, date: -1, _id: -1 } },
    { key: { user_id: 1, date: -1 } },
    { key: { place_id: 1, date: -1 } },
    { key: { date: 1 } },
    { key: { updated_at: 1 }, partialFilterExpression: { status: 'dead', payload: { $exists: true } } },
  ],
  // A callback's attempts in order, retention by time, admin/app/delete by application.
  delivery_attempts: [{ key: { event_id: 1, attempt: 1 } }, { key: { at: 1 } }, { key: { app_id: 1 } }],
  // A user's messages by date (message/list, the stream's queue), all by date (retention). `user_id,
  // delivered_at`: the live stream's poll asks for connected users' messages without `delivered_at`,
  // which an index scans as null keys only. (Declared as the releases before created them.)
  messages: [
    { key: { user_id: 1, date: 1 }, unique: false, sparse: false },
    { key: { date: 1 }, unique: false, sparse: false },
    { key: { user_id: 1, delivered_at: 1 }, unique: false, sparse: false },
  ],
  // message/device payloads waiting for a live stream: a user's, and the expired (retention).
  device_messages: [{ key: { user_id: 1 }, unique: false, sparse: false }, { key: { expires_at: 1 }, unique: false, sparse: false }],
};
export const DOCUMENT_TABLE_NAMES = Object.keys(DOCUMENT_TABLES) as DocumentTableName[];
/**
 * Every collection, of every kind, and the earlier names of firings (`outbox`, `trigger_history`):
 * the files of the old engine (sqlite/legacy.ts) are looked for by these names, and imported as
 * document tables that the typed repositories migrate when the store opens next.
 */
export const ALL_COLLECTION_NAMES: readonly string[] = [
  ...DOCUMENT_TABLE_NAMES, 'service_starts', ...Object.keys(TYPED_INDEXES).filter((n) => n !== 'firings'), 'outbox', 'trigger_history',
];
