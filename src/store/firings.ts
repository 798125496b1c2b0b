// The firings of triggers and their delivery, in the domain's words: one record per firing holds
// its trigger/history entry and, for a callback, its place in the outbox (state, lease, payload).
// Every HTTP attempt of a callback is a record of its own (AttemptRepo). Two engines implement
// these interfaces (sqlite/firings.ts, mongodb/firings.ts); test/store/firings-contract.test.ts
// holds both to the same answers.

/** Why a firing did not happen (the engine's gates; schemas/firing.ts has the same list). */
export type FiringGate = 'date_window' | 'time_window' | 'rate_limit' | 'one_time_spent' | 'trigger_inactive';

/** Where a callback stands. (A message firing's delivery is its message's: messages.delivered_at.) */
export type DeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'dead';

/** One firing: its history entry and, for a callback, its delivery. Absent fields are absent, never null. */
export interface FiringRecord {
  event_id: string;
  app_id: string;
  user_id: string;
  trigger_id: string;
  place_id: string;
  layer_id: string;
  type: 'callback' | 'message';
  triggered_on: 'enter' | 'leave';
  /** Seconds of dwell before the firing. */
  delay_s: number;
  /** Epoch ms of the firing (the point's device time, or the dwell deadline). */
  date: number;
  /** Epoch ms when the service received the point that caused it (for a dwell, when the tick was applied). */
  received_at?: number;
  /** Made by trigger/run. */
  run?: true;
  /** Not listed in trigger/history: trigger/run's stand-in user, or a callback of a user since deleted. */
  unlisted?: true;
  /** Stopped by a gate (machines/README.md "gated"): nothing was sent, and it has no delivery. */
  gate?: FiringGate;
  /** A callback's: the trigger's URL, followed while not delivered (delivery/queued-callbacks.ts). */
  url?: string;
  /**
   * A callback's body exactly as sent on every attempt; kept once delivered, for a redelivery, until
   * retention drops it with the attempt log; dropped when cancelled.
   */
  payload?: string;
  /** A callback's (not gated) delivery state. */
  status?: DeliveryStatus;
  /** HTTP attempts made so far, each in the attempt log. */
  attempts: number;
  /** Dispatch rounds started (the long retry schedule counts rounds). */
  rounds: number;
  /** While pending: when it is due; while delivering: when its lease runs out; absent once done. */
  next_attempt_at?: number;
  /** While delivering: the lease holder (its writes land only while it still holds the lease). */
  lease_owner?: string;
  last_status?: number;
  last_error?: string;
  /** When the delivering attempt came back. */
  delivered_at?: number;
  /** How long the delivering attempt took (ms). */
  last_duration_ms?: number;
  /** When an application last asked to deliver it again (trigger/history/redeliver). */
  redelivery_at?: number;
  /** Who asked for that redelivery: the label its call gave ('api' unless said otherwise). */
  redelivery_by?: string;
  created_at: number;
  updated_at: number;
}

/** A firing as recordFirings and trigger/run write it. */
export type NewFiring = Omit<FiringRecord, 'attempts' | 'rounds' | 'updated_at' | 'status' | 'lease_owner' | 'redelivery_at' | 'redelivery_by'> & {
  /** Callbacks only: pending, due at next_attempt_at. */
  status?: 'pending';
};

/** What a poll needs of a due callback to choose it. */
export interface DueHead {
  event_id: string;
  next_attempt_at: number;
  /** Its place among callbacks due at the same time: the order they were stored in. */
  seq: number;
  url: string;
  app_id: string;
}

/** A place in due order: due time, then the order of storing. */
export interface DuePosition {
  at: number;
  seq: number;
}

/** A callback leased for a round: what the round sends and counts. Mutable: the round counts on it. */
export interface LeasedCallback {
  event_id: string;
  app_id: string;
  trigger_id: string;
  user_id: string;
  url: string;
  /** Absent when cancelled meanwhile (the round then ends it). */
  payload?: string;
  attempts: number;
  /** Rounds started, this one included. */
  rounds: number;
  last_status?: number;
  lease_owner: string;
  /** When the lease runs out (epoch ms). */
  lease_until: number;
  /** When the firing was stored (epoch ms): the start of its delivery latency. */
  created_at: number;
  /** Set while a redelivery an application asked for is under way: marks its attempts. */
  redelivery_by?: string;
}

/** The callbacks still to be sent, as a scrape sees them (FiringRepo.outbox). */
export interface OutboxFigures {
  /** Pending or leased callbacks, counted up to the limit asked for. */
  waiting: number;
  /** The earliest `created_at` among those counted; null when none waits. */
  oldestAt: number | null;
}

/** How an attempt failed when no HTTP status says it. */
export type AttemptErrorClass = 'timeout' | 'refused' | 'reset' | 'dns' | 'tls' | 'ssrf' | 'other';

/** One HTTP attempt of one callback (the delivery log). */
export interface AttemptRecord {
  event_id: string;
  /** 1-based over the callback's life. */
  attempt: number;
  app_id: string;
  /** Epoch ms when the attempt came back. */
  at: number;
  duration_ms: number;
  status_code?: number;
  error_class?: AttemptErrorClass;
  /** What went wrong, in words (never the body, a secret or a URL's query). */
  error?: string;
  /** The start of the receiver's answer, bounded (ATTEMPT_BODY_MAX characters). */
  body?: string;
  outcome: 'delivered' | 'retry' | 'dead';
  /** An attempt of a redelivery an application asked for: who asked (FiringRecord.redelivery_by). */
  requested_by?: string;
}

/**
 * The class of a failure from its words (attempts logged before the class was kept): the sender's
 * error texts start with the class's sign (callback-sender.ts).
 */
export function errorClassFromText(error: string): AttemptErrorClass {
  if (/^timeout\b/i.test(error)) return 'timeout';
  if (/^blocked\b/i.test(error)) return 'ssrf';
  if (/ECONNREFUSED/.test(error)) return 'refused';
  if (/ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED/.test(error)) return 'reset';
  if (/ENOTFOUND|EAI_AGAIN|ENODATA/.test(error)) return 'dns';
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(error)) return 'tls';
  return 'other';
}

/** The response body kept per attempt, at most (characters). */
export const ATTEMPT_BODY_MAX = 256;

/** How a round left its callback. */
export type RoundEnd =
  | { status: 'delivered'; at: number; durationMs: number }
  | { status: 'pending'; nextAttemptAt: number; lastError: string }
  | { status: 'dead'; lastError: string; dropPayload?: boolean };

/** Which firings trigger/history lists: always one application's. */
export interface HistoryQuery {
  app_id: string;
  user_id?: string;
  layer_id?: string;
  place_id?: string;
  trigger_id?: string;
  /** Also the gated ones. */
  gated?: boolean;
}

/** A firing that may gate the next one (the engine's rate limits across a restart). */
export interface RecentFiring {
  user_id: string;
  trigger_id: string;
  date: number;
}

export interface FiringRepo {
  /** Stores new firings in one write; returns the event ids that were stored already (a replay). */
  insert(rows: readonly NewFiring[]): Promise<Set<string>>;
  get(eventId: string): Promise<FiringRecord | null>;

  // The outbox: due callbacks, leases and outcomes. Every write to a leased callback is
  // conditional on its lease owner, so of several loops only the holder changes it.
  /**
   * Up to `limit` due callbacks, the longest due first (those due at the same time in the order
   * they were stored, so a user's enter goes before the leave that followed it): pending ones whose
   * time came, and leased ones whose lease ran out. `after`: only those after this position.
   */
  dueHeads(now: number, limit: number, after?: DuePosition): Promise<DueHead[]>;
  /** Leases those of `ids` still due, under `owner` until `until`; returns the ones won. */
  leaseDue(ids: readonly string[], owner: string, until: number, now: number): Promise<LeasedCallback[]>;
  /**
   * Leases one callback due or not (trigger/run sends its own at once), or `expected` again (a lease
   * about to run out): null when it is finished, or leased by someone else whose lease holds.
   */
  leaseOne(eventId: string, owner: string, until: number, now: number, expected?: LeasedCallback): Promise<LeasedCallback | null>;
  /** Leased and never started: due now, as if never leased. */
  release(list: readonly LeasedCallback[], now: number): Promise<void>;
  /** A round stopped mid-send (shutdown): due now, its attempts counted and the last one logged. */
  handBack(c: LeasedCallback, now: number, last?: AttemptRecord): Promise<void>;
  /** An attempt another may follow: logged, and counted on the callback. False when the lease is lost. */
  attempted(c: LeasedCallback, a: AttemptRecord): Promise<boolean>;
  /** How the round ended, with its last attempt (if not logged yet). False when the lease was lost. */
  finish(c: LeasedCallback, end: RoundEnd, now: number, last?: AttemptRecord): Promise<boolean>;
  /** A receiver answers again: its callbacks waiting for a later round are due now. Returns how many. */
  dueAgain(urls: readonly string[], now: number): Promise<number>;
  /** Leased callbacks whose owner does not start with `ownerPrefix` are due now (their process is gone). */
  orphansDue(ownerPrefix: string, now: number): Promise<number>;
  /**
   * The callbacks still to be sent (pending or leased), read from the outbox's own index and
   * counted up to `limit` in due order, so the read's cost is bounded however long the backlog.
   */
  outbox(limit: number): Promise<OutboxFigures>;
  /** trigger/run held its callback back until `heldUntil`: due now, if still so. */
  releaseHold(eventId: string, heldUntil: number, now: number): Promise<void>;

  // Changes to what callbacks are about.
  /** The pending callbacks of a user or a trigger end dead with `reason`, without payload. Returns how many. */
  cancelWaiting(appId: string, scope: { user_id: string } | { trigger_id: string }, reason: string, now: number): Promise<number>;
  /** A trigger's callbacks not delivered yet go to its new URL; the pending ones are due now. */
  followUrl(appId: string, triggerId: string, url: string, now: number): Promise<void>;
  /**
   * user/delete: the user's firings go with their attempts; a callback leased for a round stays,
   * unlisted and without payload, until its round ends it.
   */
  forgetUser(appId: string, userId: string): Promise<void>;
  /** admin/app/delete: every firing and attempt of the application. */
  removeForApp(appId: string): Promise<void>;

  /**
   * trigger/history/redeliver: a finished callback (delivered or dead) that still keeps its payload
   * becomes due at `dueAt` again with a fresh retry schedule, marked as asked for by `by`. Null when
   * it is not the application's, not finished (one redelivery at a time) or kept no payload.
   */
  reopen(appId: string, eventId: string, by: string, now: number, dueAt: number): Promise<FiringRecord | null>;

  // Reads.
  /** trigger/history's page: newest first (date, then event id), without payloads. */
  history(q: HistoryQuery, offset: number, limit: number): Promise<FiringRecord[]>;
  count(q: HistoryQuery): Promise<number>;
  /** Firings of these users since `since` that count against rate limits (not gated, not trigger/run). */
  recentForUsers(userIds: readonly string[], since: number): Promise<RecentFiring[]>;
  /** Type and date of the application's firings not made by trigger/run (application/usage). */
  usage(appId: string): Promise<Array<{ type: FiringRecord['type']; date: number }>>;

  // Retention, a chunk at a time.
  /**
   * Up to `limit` finished callbacks whose delivery log is older than `cutoff`: their attempts go,
   * and a dead one's kept payload. Returns the callbacks and the attempts removed.
   */
  sweepDelivery(cutoff: number, limit: number): Promise<{ callbacks: number; attempts: number }>;
  /**
   * Up to `limit` firings dated before `cutoff` go, with their attempts (never a callback still to
   * be sent). Returns how many went.
   */
  sweepHistory(cutoff: number, limit: number): Promise<number>;
}

export interface AttemptRepo {
  /** Every attempt of one callback, in order. */
  list(eventId: string): Promise<AttemptRecord[]>;
  /** A page of one callback's attempts, in order, and how many it has. */
  page(eventId: string, offset: number, limit: number): Promise<{ attempts: AttemptRecord[]; total: number }>;
}
