// Every collection and every index, declared once; both engines create them at start.
//
// DOCUMENT_TABLES: the collections of cold objects, read and written through typed repositories
// (repos/): the fields their queries read (generated columns on SQLite, sqlite/doc-table.ts) and
// their indexes, created by both engines. COLLECTIONS: the collections still reached through the
// generic collection interface (collection.ts), which the engine and delivery own.
import type { IndexSpec } from './collection.js';

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

export const COLLECTIONS = {
  // `user_id, delivered_at`: the live stream's poll on MongoDB asks for connected users' messages
  // without `delivered_at`, which an index scans as null keys only (not every message of theirs).
  messages: [{ fields: ['user_id', 'date'] }, { fields: ['date'] }, { fields: ['user_id', 'delivered_at'] }],
  // Engine and delivery: declared here so both engines create them. The `date` indexes serve the
  // retention sweeps (HISTORY_RETENTION_DAYS).
  locations: [{ fields: ['user_id', 'date'] }, { fields: ['date'] }],
  // user/list?sort=recent: an application's users by their last point.
  last_locations: [{ fields: ['app_id', 'date'] }],
  machine_states: [{ fields: ['user_id'] }, { fields: ['trigger_id'] }, { fields: ['deadline'], sparse: true }],
  trigger_history: [{ fields: ['app_id', 'date'] }, { fields: ['user_id'] }, { fields: ['place_id'] }, { fields: ['date'] }],
  // Retention sweeps finished rows by status and age (services/retention.ts); user/delete and the
  // deletes and updates of triggers reach a user's or a trigger's rows by `user_id` or `trigger_id`
  // (delivery/queued-callbacks.ts), which would otherwise read all of the app's.
  outbox: [
    { fields: ['status', 'next_attempt_at'] }, { fields: ['app_id'] }, { fields: ['user_id'] }, { fields: ['trigger_id'] },
    { fields: ['status', 'updated_at'] },
  ],
  delivery_attempts: [{ fields: ['event_id'] }],
  // The decision timeline (trigger/timeline): a user's entries by time, one pair's by time (the
  // per-pair cap and trigger/state). The retention sweep reads ids, which start with the time.
  trigger_timeline: [{ fields: ['user_id', 'at'] }, { fields: ['user_id', 'trigger_id', 'place_id', 'at'] }],
  // message/device payloads waiting for a live stream (delivery/device-messages.ts).
  device_messages: [{ fields: ['user_id'] }, { fields: ['expires_at'] }],
} satisfies Record<string, IndexSpec[]>;

/**
 * Fields the embedded engine keeps in columns of their own rather than in the document's JSON text
 * (sqlite/engine.ts): the outbox's state changes several times per callback, and its payload is
 * written once. MongoDB stores documents as they are.
 */
export const COLUMNS: Partial<Record<CollectionName, readonly string[]>> = {
  outbox: [
    'status', 'next_attempt_at', 'lease_until', 'lease_owner', 'attempts', 'rounds', 'updated_at', 'app_id', 'user_id', 'trigger_id', 'url',
    'last_status', 'last_error', 'delivered_at', 'last_duration_ms', 'payload',
  ],
  // Written several times per point in a dense world: its indexes read columns, not the JSON.
  trigger_timeline: ['user_id', 'trigger_id', 'place_id', 'at'],
};

export type CollectionName = keyof typeof COLLECTIONS;
export const COLLECTION_NAMES = Object.keys(COLLECTIONS) as CollectionName[];

export const DOCUMENT_TABLE_NAMES = Object.keys(DOCUMENT_TABLES) as DocumentTableName[];
/** Every collection either way (the old engine's files and their import name them all). */
export const ALL_COLLECTION_NAMES: readonly string[] = [...COLLECTION_NAMES, ...DOCUMENT_TABLE_NAMES];
