// Failures of the store itself (a full disk, a read-only or vanished data directory, an I/O
// error), told apart from bad requests: the request that met one is answered 503 and /health says
// writes are failing, until a write goes through again.
import { ApiError } from '../errors.js';

/** Whether the store can write, and since when it cannot. */
export interface WriteHealth {
  writable: boolean;
  error?: string;
  /** Epoch ms of the first failure of the current run of failures. */
  since?: number;
}

/** A 503 in the error shape: nothing of the request was kept, what was acknowledged before stays. */
export class StoreUnavailableError extends ApiError {
  constructor(override readonly cause: unknown, readonly storeCode: string) {
    super('service_unavailable', `The service cannot store data right now (${storeCode}); nothing of this request was kept. Try again later`, { 'retry-after': '10' });
  }
}

// SQLite's result codes for a store that cannot take writes, whatever the request was.
const UNAVAILABLE = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB|BUSY|LOCKED|NOMEM|PROTOCOL)/;

/** The error as callers should see it: a StoreUnavailableError for the store's own failures. */
export function storeError(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNAVAILABLE.test(code)) return new StoreUnavailableError(err, code);
  return err;
}
