// Rows of the firings and delivery_attempts tables as records: SQLite's NULLs become absent
// fields, its 0/1 flags optional `true`s, so both engines answer with the same objects.
import type { AttemptErrorClass, AttemptRecord, DeliveryStatus, FiringGate, FiringRecord, LeasedCallback } from '../firings.js';

/** Every column but the payload, in the order toRecord reads them. */
export const RECORD_COLUMNS = `event_id, app_id, user_id, trigger_id, place_id, layer_id, type, triggered_on, delay_s, date, received_at, run,
  unlisted, gate, url, status, attempts, rounds, next_attempt_at, lease_owner, last_status, last_error, delivered_at, last_duration_ms,
  created_at, updated_at, redelivery_at, redelivery_by`;

export interface FiringRow {
  event_id: string;
  app_id: string;
  user_id: string;
  trigger_id: string;
  place_id: string;
  layer_id: string;
  type: FiringRecord['type'];
  triggered_on: FiringRecord['triggered_on'];
  delay_s: number;
  date: number;
  received_at: number | null;
  run: number;
  unlisted: number;
  gate: FiringGate | null;
  url: string | null;
  status: DeliveryStatus | null;
  attempts: number;
  rounds: number;
  next_attempt_at: number | null;
  lease_owner: string | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: number | null;
  last_duration_ms: number | null;
  created_at: number;
  updated_at: number;
  redelivery_at: number | null;
  redelivery_by: string | null;
  payload?: string | null;
}

export function toRecord(r: FiringRow): FiringRecord {
  const f: FiringRecord = {
    event_id: r.event_id, app_id: r.app_id, user_id: r.user_id, trigger_id: r.trigger_id, place_id: r.place_id, layer_id: r.layer_id,
    type: r.type, triggered_on: r.triggered_on, delay_s: r.delay_s, date: r.date, attempts: r.attempts, rounds: r.rounds,
    created_at: r.created_at, updated_at: r.updated_at,
  };
  if (r.received_at !== null) f.received_at = r.received_at;
  if (r.run) f.run = true;
  if (r.unlisted) f.unlisted = true;
  if (r.gate !== null) f.gate = r.gate;
  if (r.url !== null) f.url = r.url;
  if (r.payload !== undefined && r.payload !== null) f.payload = r.payload;
  if (r.status !== null) f.status = r.status;
  if (r.next_attempt_at !== null) f.next_attempt_at = r.next_attempt_at;
  if (r.lease_owner !== null) f.lease_owner = r.lease_owner;
  if (r.last_status !== null) f.last_status = r.last_status;
  if (r.last_error !== null) f.last_error = r.last_error;
  if (r.delivered_at !== null) f.delivered_at = r.delivered_at;
  if (r.last_duration_ms !== null) f.last_duration_ms = r.last_duration_ms;
  if (r.redelivery_at !== null) f.redelivery_at = r.redelivery_at;
  if (r.redelivery_by !== null) f.redelivery_by = r.redelivery_by;
  return f;
}

/** What a lease returns of the row (RETURNING). */
export const LEASED_COLUMNS = 'event_id, app_id, trigger_id, user_id, url, payload, attempts, rounds, last_status, next_attempt_at, created_at, redelivery_by';

export interface LeasedRow {
  event_id: string;
  app_id: string;
  trigger_id: string;
  user_id: string;
  url: string;
  payload: string | null;
  attempts: number;
  rounds: number;
  last_status: number | null;
  next_attempt_at: number;
  created_at: number;
  redelivery_by: string | null;
}

export function toLeased(r: LeasedRow, owner: string): LeasedCallback {
  const c: LeasedCallback = {
    event_id: r.event_id, app_id: r.app_id, trigger_id: r.trigger_id, user_id: r.user_id, url: r.url, attempts: r.attempts, rounds: r.rounds,
    lease_owner: owner, lease_until: r.next_attempt_at, created_at: r.created_at,
  };
  if (r.payload !== null) c.payload = r.payload;
  if (r.last_status !== null) c.last_status = r.last_status;
  if (r.redelivery_by !== null) c.redelivery_by = r.redelivery_by;
  return c;
}

export const ATTEMPT_COLUMNS = 'event_id, attempt, app_id, at, duration_ms, status_code, error_class, error, body, outcome, requested_by';

export interface AttemptRow {
  event_id: string;
  attempt: number;
  app_id: string;
  at: number;
  duration_ms: number;
  status_code: number | null;
  error_class: AttemptRecord['error_class'] | null;
  error: string | null;
  body: string | null;
  outcome: AttemptRecord['outcome'];
  requested_by: string | null;
}

export function toAttempt(r: AttemptRow): AttemptRecord {
  const a: AttemptRecord = { event_id: r.event_id, attempt: r.attempt, app_id: r.app_id, at: r.at, duration_ms: r.duration_ms, outcome: r.outcome };
  if (r.status_code !== null) a.status_code = r.status_code;
  if (r.error_class !== null) a.error_class = r.error_class;
  if (r.error !== null) a.error = r.error;
  if (r.body !== null) a.body = r.body;
  if (r.requested_by !== null) a.requested_by = r.requested_by;
  return a;
}

export type AttemptParams = [
  string, number, string, number, number, number | null, AttemptErrorClass | null, string | null, string | null, AttemptRecord['outcome'], string | null,
];

/** The values of an attempt, in ATTEMPT_COLUMNS' order. */
export function attemptValues(a: AttemptRecord): AttemptParams {
  return [a.event_id, a.attempt, a.app_id, a.at, a.duration_ms, a.status_code ?? null, a.error_class ?? null, a.error ?? null, a.body ?? null, a.outcome, a.requested_by ?? null];
}
