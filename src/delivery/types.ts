// The shapes the parts of delivery share: its log, how a round ended, what the loop offers the code
// that stores callbacks, and what the loop is built from.
import type { Metrics } from '../metrics/metrics.js';
import type { Store } from '../store/store.js';
import type { DeliveryStatus, FiringRepo } from '../store/firings.js';
import type { RoundOptions, Sender } from './callback-sender.js';
import type { DocCache } from './doc-cache.js';
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

/** What the delivery loop exposes to the code that stores callbacks (delivery-loop.ts implements it). */
export interface DispatcherHandle {
  /** Callbacks were stored or made due: the loop reads the outbox at its next turn. */
  wake(): void;
  /**
   * Leases one pending callback now, even if due later, and runs a single attempt (trigger/run).
   * Null when it could not be leased (another loop has it, or this one is stopping).
   */
  deliverNow(eventId: string): Promise<DeliveryReport | null>;
}

export interface LoopOptions {
  /** How often the outbox is read from its start when nothing else makes the loop read it (ms). */
  pollMs?: number;
  /** How long a leased callback belongs to this loop before another may take it (ms). */
  leaseMs?: number;
  /**
   * Rounds at the same time (default 192; the service passes CALLBACK_CONCURRENCY). Receivers are
   * mostly one origin per application; the sender opens a connection per concurrent request, so
   * this also caps those. A slot is held through the send and the outcome's writes.
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
  /** Leased callbacks kept waiting for a free slot at most (default 10,000); past this they stay due in the store. */
  queueLimit?: number;
  random?: () => number;
}

export interface LoopDeps {
  firings: FiringRepo;
  docs: DocCache;
  sender: Sender;
  now: () => number;
  log: DeliveryLog;
  /** The store is owned by this process alone (embedded): a lease no loop here holds was left by a dead one. */
  ownsStore: boolean;
  /** The service's instruments: attempts and delivery latency. */
  metrics: Metrics;
}
