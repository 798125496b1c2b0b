// The shapes the parts of delivery share: its log, how a round ended, what the loop offers the code
// that writes outbox rows, and what the loop is built from.
import type { DeliveryStatus, OutboxDoc } from '../store/documents.js';
import type { Store } from '../store/store.js';
import type { RoundOptions, Sender } from './callback-sender.js';
import type { DocCache } from './doc-cache.js';
import type { OutboxRepo } from './outbox-repo.js';
import type { BackoffPolicy } from './retry-schedule.js';

/** The store and the clock: what most of delivery reads (a delivery runtime and a service context both have them). */
export interface StoreAccess {
  readonly store: Store;
  now(): number;
}

export interface DeliveryLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLog: DeliveryLog = { info() {}, warn() {}, error() {} };

/** How a dispatch round of one callback ended. */
export interface DeliveryReport {
  status: DeliveryStatus;
  attempts: number;
  last_status?: number;
  last_error?: string;
}

/** What the delivery loop exposes to the code that writes outbox rows (delivery-loop.ts implements it). */
export interface DispatcherHandle {
  /** Look in the outbox now (rows written without being offered, a hold released). */
  wake(): void;
  /**
   * Rows just inserted and due now: leased and sent without waiting for a poll. Without this
   * method (another kind of handle) the caller wakes the loop instead.
   */
  offer?(rows: OutboxDoc[]): void;
  /**
   * Called with new rows before they are inserted: leases (in the rows themselves) as many as the
   * loop can queue, so they are written leased and the lease costs no write of its own. They must
   * then be offered once inserted.
   */
  leaseNew?(rows: OutboxDoc[], now: number): void;
  /**
   * Leases one pending row now, even if due later, and runs a single attempt (trigger/run).
   * Null when it could not be leased (another loop has it, or this one is stopping).
   */
  deliverNow(eventId: string): Promise<DeliveryReport | null>;
}

export interface LoopOptions {
  /** How often the outbox is polled when nothing wakes the loop (ms). */
  pollMs?: number;
  /** How long a leased row belongs to this loop before another may take it (ms). */
  leaseMs?: number;
  /**
   * Rows in a round at the same time (default 192; the service passes CALLBACK_CONCURRENCY).
   * Receivers are mostly one origin per application; the sender opens a connection per concurrent
   * request, so this also caps those. A slot is held through the send and the outcome's writes.
   */
  concurrency?: number;
  /**
   * Callbacks to one origin in their HTTP phase at once, at most (default half of `concurrency`):
   * a receiver that hangs holds no more than that, and the other slots serve everyone else.
   */
  endpointConcurrency?: number;
  backoff?: Partial<BackoffPolicy>;
  /** The quick retries inside one round (p-retry). */
  round?: Pick<RoundOptions, 'retries' | 'minDelayMs' | 'maxInlineRetryAfterMs'>;
  /** Handed-over rows kept waiting for a free slot at most (default 10,000); past this the poll finds them. */
  queueLimit?: number;
  random?: () => number;
}

export interface LoopDeps {
  repo: OutboxRepo;
  docs: DocCache;
  sender: Sender;
  now: () => number;
  log: DeliveryLog;
  /** The store is owned by this process alone (embedded): a lease no loop here holds was left by a dead one. */
  ownsStore: boolean;
}
