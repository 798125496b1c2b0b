// The shapes the parts of delivery share: its log, how a round ended, and what the loop offers the
// code that writes outbox rows.
import type { DeliveryStatus, OutboxDoc } from '../store/documents.js';
import type { Store } from '../store/store.js';

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
