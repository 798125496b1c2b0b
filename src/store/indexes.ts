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
  layers: [{ fields: ['app_id'] }, { fields: ['uniq_key'], unique: true, sparse: true }],
  places: [{ fields: ['app_id'] }, { fields: ['layer_id'] }, { fields: ['uniq_key'], unique: true, sparse: true }],
  triggers: [
    { fields: ['app_id'] },
    { fields: ['place_id'] },
    { fields: ['layer_id'] },
    { fields: ['uniq_key'], unique: true, sparse: true },
  ],
  subscriptions: [{ fields: ['user_id'] }, { fields: ['layer_id'] }],
  // user_id alone: message/list ({user_id, app_id}) and the live stream's poll ($in) scanned every message.
  messages: [{ fields: ['user_id', 'date'] }, { fields: ['user_id'], embeddedOnly: true }],
  // Engine and delivery (trigger engine issue): declared here so both engines create them.
  locations: [{ fields: ['user_id', 'date'] }, { fields: ['user_id'], embeddedOnly: true }],
  last_locations: [],
  machine_states: [{ fields: ['user_id'] }, { fields: ['trigger_id'] }, { fields: ['deadline'], sparse: true }],
  trigger_history: [{ fields: ['app_id', 'date'] }, { fields: ['user_id'] }, { fields: ['place_id'] }],
  // status alone: the dispatcher's poll ({status: {$in}, next_attempt_at: {$lte}}) scanned the whole outbox.
  outbox: [{ fields: ['status', 'next_attempt_at'] }, { fields: ['app_id'] }, { fields: ['status'], embeddedOnly: true }],
  delivery_attempts: [{ fields: ['event_id'] }],
} satisfies Record<string, IndexSpec[]>;

export type CollectionName = keyof typeof COLLECTIONS;
export const COLLECTION_NAMES = Object.keys(COLLECTIONS) as CollectionName[];
