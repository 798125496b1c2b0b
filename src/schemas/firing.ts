// A firing as the engine decides it and delivery records it: the one shape both sides share.

/** The point that caused a firing, as the engine hands it over. */
export interface FiringPoint {
  /** Device timestamp, epoch ms. */
  date: number;
  latitude: number;
  longitude: number;
  horizontal_accuracy?: number | null;
  vertical_accuracy?: number | null;
  altitude?: number | null;
  speed?: number | null;
  heading?: number | null;
  raw?: Record<string, unknown> | null;
  uuid?: string;
}

export interface Firing {
  /** Stable id of this firing, chosen by the engine (deterministic, so a replay reuses it). */
  event_id: string;
  app_id: string;
  user_id: string;
  trigger_id: string;
  place_id: string;
  layer_id: string;
  triggered_on: 'enter' | 'leave';
  /** Seconds of dwell before the firing (trigger_after for a dwell trigger, else 0). */
  delay_s: number;
  /** Epoch ms of the firing (the point's time, or the dwell deadline). */
  at: number;
  /** Epoch ms: when the service received the point that caused it (a dwell deadline: when it applied the tick). */
  received_at: number;
  /** The point that caused it (for a dwell deadline, the last point inside). */
  location: FiringPoint;
}

/**
 * Why a firing did not happen (machines/README.md "gated"): a closed date or daily window, the
 * layer's rate limit, a one-time trigger already spent, or a trigger whose own date range is over.
 */
export type FiringGate = 'date_window' | 'time_window' | 'rate_limit' | 'one_time_spent' | 'trigger_inactive';
export const FIRING_GATES: readonly FiringGate[] = ['date_window', 'time_window', 'rate_limit', 'one_time_spent', 'trigger_inactive'];

/**
 * A firing the gates stopped: recorded in trigger/history (marked, with its gate), nothing sent.
 * Its event id is the firing's own with `:gated` after it, so it never takes the place of a real one.
 */
export type GatedFiring = Omit<Firing, 'location'> & { gate: FiringGate };
