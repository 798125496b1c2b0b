// Stored documents of the engine: points (history and last locations), the decision timeline and
// the machines of pairs that are not outside.

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
  /** Metres from the place's centre. */
  distance_m: number | null;
  /** A polygon or corridor place's own measure: metres outside its boundary (negative inside) and its leave margin. */
  boundary?: { shape: 'polygon' | 'corridor'; outside_m: number; margin_m: number };
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
 * When the engine started taking points, the recent starts only (engine/dwell-clock.ts): a dwell
 * deadline that passed while the service was down waits for the grace from the first start after
 * it. One document, `_id` = `dwell_clock`.
 */
export interface ServiceStartsDoc {
  _id: string;
  /** Epoch ms, oldest first. */
  starts: number[];
}
