// What the engine stores: points (history and last locations), the decision timeline and the
// machines of pairs that are not outside. Each has a shape to write (`…Row`: flat, JSON parts
// already as text, made in the shard threads) and a shape read back (`…Doc`).

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
  /** When the service received it, epoch ms. */
  received_at: number;
}

/** A point to store: one row of the history or a user's last location. */
export interface PointRow {
  app_id: string;
  user_id: string;
  uuid: string;
  /** The phone sent the uuid (a repeat of it is the same point); else the service made it. */
  own_uuid: boolean;
  date: number;
  latitude: number;
  longitude: number;
  horizontal_accuracy: number;
  speed: number | null;
  altitude: number | null;
  heading: number | null;
  vertical_accuracy: number | null;
  /** JSON text, or null. */
  raw: string | null;
  /** JSON text, or null when the point had none. */
  client: string | null;
  received_at: number;
}

/** The fields of a user's last point the engine is seeded with. */
export interface LastPointSeed {
  user_id: string;
  date: number;
  latitude: number;
  longitude: number;
  horizontal_accuracy: number;
}

/** Device time bounds of a history read, both exclusive. */
export interface DateRange {
  after?: number;
  before?: number;
}

export type TimelineKind = 'transition' | 'fired' | 'gated' | 'point';
export type TimelineEvent = 'enter' | 'leave' | 'dwell';
export type TimelineState = 'outside' | 'inside' | 'dwelling' | 'firedOnce';
export type TimelineGate = 'date_window' | 'time_window' | 'rate_limit' | 'one_time_spent' | 'trigger_inactive';
export type TimelineNote = 'band' | 'unusable_accuracy' | 'stale_point' | 'dwell_too_short';
export type TimelineZone = 'in' | 'out' | 'band' | 'unusable';

/**
 * One decision of the engine for a (user, trigger, place): a transition, a firing, a gated firing,
 * or a point that changed nothing but is worth showing (machines/README.md "Timeline").
 */
export interface TimelineDoc {
  /** Sorts by time (`at` first) within a user. */
  _id: string;
  app_id: string;
  user_id: string;
  trigger_id: string;
  place_id: string;
  layer_id: string | null;
  kind: TimelineKind;
  event: TimelineEvent | null;
  from: TimelineState | null;
  to: TimelineState | null;
  gate: TimelineGate | null;
  note: TimelineNote | null;
  /** The point behind it (device time); null for a clock tick. */
  point: { date: number; latitude: number; longitude: number; horizontal_accuracy: number | null } | null;
  zone: TimelineZone | null;
  /** Metres from the place's centre. */
  distance_m: number | null;
  /** A polygon or corridor place's own measure: metres outside its boundary (negative inside) and its leave margin. */
  boundary?: TimelineBoundaryDoc;
  /** The firing's event id (trigger/history, callbacks), for a `fired` entry. */
  firing_id: string | null;
  /** When it happened, epoch ms: the point's device time, or the tick's (a dwell deadline). */
  at: number;
  /** When the service received the point behind it (or applied the tick), epoch ms. */
  received_at: number;
}

/** A timeline entry to store. */
/** A polygon or corridor place's own measure at an entry's point. */
export interface TimelineBoundaryDoc {
  shape: 'polygon' | 'corridor';
  outside_m: number;
  margin_m: number;
}

export interface TimelineRow {
  app_id: string;
  user_id: string;
  trigger_id: string;
  place_id: string;
  layer_id: string | null;
  kind: TimelineKind;
  event: TimelineEvent | null;
  from: TimelineState | null;
  to: TimelineState | null;
  gate: TimelineGate | null;
  note: TimelineNote | null;
  /** The point behind it; null (all four) for a clock tick. Accuracy null when the point had none. */
  point_date: number | null;
  latitude: number | null;
  longitude: number | null;
  horizontal_accuracy: number | null;
  zone: TimelineZone | null;
  distance_m: number | null;
  firing_id: string | null;
  at: number;
  received_at: number;
  /** A shaped place's own measure (none for a circle, or without a point). */
  boundary?: TimelineBoundaryDoc;
}

/** Which entries of a user's timeline (all given ones apply); times exclusive. */
export interface TimelineFilter {
  trigger_id?: string;
  place_id?: string;
  after?: number;
  before?: number;
}

/** One (user, trigger, place). */
export interface PairKey {
  user_id: string;
  trigger_id: string;
  place_id: string;
}

export type PairState = 'inside' | 'dwelling' | 'firedOnce';

/** The point that last moved a machine. */
export interface MachinePoint {
  date: number;
  latitude: number;
  longitude: number;
  horizontal_accuracy: number;
}

/** The persisted machine of one (user, trigger, place) that is not outside. */
export interface MachineStateDoc {
  app_id: string;
  user_id: string;
  trigger_id: string;
  place_id: string;
  record: import('../../machines/types.js').PairRecord;
  /** The point that last moved this machine. */
  last_point?: MachinePoint;
  updated_at: number;
}

/**
 * A change of a pair's machine: its record whole (`transitions`: the record's history as JSON
 * text), or `state` null for a pair back outside (its machine goes). `point` null keeps the stored
 * one (the machine moved without a point: a dwell deadline, a rule change).
 */
export interface MachineRow extends PairKey {
  app_id: string;
  state: PairState | null;
  since: number;
  entered_at: number;
  deadline: number | null;
  last_point_at: number | null;
  transitions: string;
  point: MachinePoint | null;
  updated_at: number;
}

/** A user inside a place by one of its machines (layer/users). */
export interface Presence {
  user_id: string;
  place_id: string;
  /** When the visit began. */
  entered_at: number;
}
