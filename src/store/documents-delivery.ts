// Stored documents of delivery (src/delivery/): the outbox, every attempt, and the history of firings.

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
