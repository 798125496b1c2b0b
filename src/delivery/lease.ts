// A leased outbox row, and how close to its end a lease is still surely the holder's.
import type { OutboxDoc } from '../store/documents.js';

export type Leased = OutboxDoc & { lease_owner: string };

/**
 * A lease this far from running out cannot have been taken over (even with some clock skew between
 * nodes), so a row's outcome and its history entry are written together; closer, history waits to
 * see whether the row was still ours.
 */
export const LEASE_MARGIN_MS = 10_000;
