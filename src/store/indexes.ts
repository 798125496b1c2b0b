// Every collection and every index, declared once; both engines create them at start.
import type { IndexSpec } from './collection.js';

export const COLLECTIONS = {
  applications: [{ fields: ['client_id'], unique: true }],
  users: [
    { fields: ['app_id', 'created_at'] },
    { fields: ['uniq_username'], unique: true },
    { fields: ['uniq_key'], unique: true, sparse: true },
    { fields: ['uniq_email'], unique: true, sparse: true },
  ],
  tokens: [{ fields: ['user_id'] }],
  // Authorization codes (services/auth-codes.ts); retention sweeps the expired ones by `expires_at`.
  oauth_codes: [{ fields: ['app_id'] }, { fields: ['expires_at'] }],
  layers: [{ fields: ['app_id'] }, { fields: ['uniq_key'], unique: true, sparse: true }],
  places: [{ fields: ['app_id'] }, { fields: ['layer_id'] }, { fields: ['uniq_key'], unique: true, sparse: true }],
  triggers: [
    { fields: ['app_id'] },
    { fields: ['place_id'] },
    { fields: ['layer_id'] },
    { fields: ['uniq_key'], unique: true, sparse: true },
  ],
  subscriptions: [{ fields: ['user_id'] }, { fields: ['layer_id'] }],
  // `user_id, delivered_at`: the live stream's poll on MongoDB asks for connected users' messages
  // without `delivered_at`, which an index scans as null keys only (not every message of theirs).
  messages: [{ fields: ['user_id', 'date'] }, { fields: ['date'] }, { fields: ['user_id', 'delivered_at'] }],
  // The engine's: declared here so both engines create them. The `date` index serves the retention
  // sweep (HISTORY_RETENTION_DAYS). (Firings and their delivery have tables of their own: firings.ts.)
  locations: [{ fields: ['user_id', 'date'] }, { fields: ['date'] }],
  last_locations: [],
  machine_states: [{ fields: ['user_id'] }, { fields: ['trigger_id'] }, { fields: ['deadline'], sparse: true }],
  // Geonotes, share links and history batches (services/geonotes.ts, share-links.ts, location-batches.ts).
  geonotes: [{ fields: ['user_id', 'date_created'] }, { fields: ['trigger_id'] }],
  share_links: [{ fields: ['user_id'] }],
  location_batches: [{ fields: ['user_id'] }],
  // Groups (reference §4.7): an application's groups, a user's memberships, a group's members and messages.
  groups: [{ fields: ['app_id', 'date_created'] }, { fields: ['owner_id'], sparse: true }],
  group_members: [{ fields: ['group_token', 'date_joined'] }, { fields: ['user_id'] }],
  group_messages: [{ fields: ['group_token', 'date'] }],
  // The decision timeline (trigger/timeline): a user's entries by time, one pair's by time (the
  // per-pair cap and trigger/state). The retention sweep reads ids, which start with the time.
  trigger_timeline: [{ fields: ['user_id', 'at'] }, { fields: ['user_id', 'trigger_id', 'place_id', 'at'] }],
  // message/device payloads waiting for a live stream (services/device-messages.ts) and the API-hit
  // counters each process flushes (services/api-hits.ts).
  device_messages: [{ fields: ['user_id'] }, { fields: ['expires_at'] }],
  api_hits: [{ fields: ['app_id', 'day'] }],
} satisfies Record<string, IndexSpec[]>;

/**
 * Fields the embedded engine keeps in columns of their own rather than in the document's JSON text
 * (sqlite/engine.ts). MongoDB stores documents as they are.
 */
export const COLUMNS: Partial<Record<CollectionName, readonly string[]>> = {
  // Written several times per point in a dense world: its indexes read columns, not the JSON.
  trigger_timeline: ['user_id', 'trigger_id', 'place_id', 'at'],
};

export type CollectionName = keyof typeof COLLECTIONS;
export const COLLECTION_NAMES = Object.keys(COLLECTIONS) as CollectionName[];
