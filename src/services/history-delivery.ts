// Where each trigger/history firing's delivery stands. A callback's is its firing's own delivery
// state (the loop counts each attempt on it as it happens, even mid-round); a trigger message's is
// its message's: delivered once a phone's live stream took it.
import type { MessageDoc } from '../store/documents.js';
import type { FiringRecord } from '../store/firings.js';
import { isoDate, unixSeconds } from '../schemas/dates.js';
import type { ServiceContext } from './context.js';

/** The stored messages of the message firings among `rows`, in one read. */
export async function firingMessages(ctx: ServiceContext, appId: string, rows: readonly FiringRecord[]): Promise<Map<string, Pick<MessageDoc, 'delivered_at'>>> {
  const ids = rows.filter((r) => r.type === 'message' && !r.gate).map((r) => r.event_id);
  if (ids.length === 0) return new Map();
  const delivered = await ctx.store.messages.deliveredAt(appId, ids);
  return new Map([...delivered].map(([id, at]) => [id, at === undefined ? {} : { delivered_at: at }]));
}

/**
 * status (a round under way counts as pending), attempts, last_status (the receiver's last HTTP
 * status), last_error while not delivered, next_attempt_at (+ `_ts`) while a retry waits (not
 * while a round is under way), and delivered_at (+ `_ts`) once delivered.
 */
export function deliveryOf(f: FiringRecord, message: Pick<MessageDoc, 'delivered_at'> | undefined, timeZone: string) {
  if (f.type === 'message') return { status: message?.delivered_at !== undefined ? 'delivered' as const : 'pending' as const, attempts: 0 };
  const status = f.status === 'delivering' || f.status === undefined ? 'pending' : f.status;
  const waiting = f.status === 'pending' && f.attempts > 0 && f.next_attempt_at !== undefined;
  return {
    status,
    attempts: f.attempts,
    ...(f.last_status !== undefined ? { last_status: f.last_status } : {}),
    ...(f.last_error && status !== 'delivered' ? { last_error: f.last_error } : {}),
    ...(waiting ? { next_attempt_at: isoDate(f.next_attempt_at!, timeZone), next_attempt_at_ts: unixSeconds(f.next_attempt_at!) } : {}),
    ...(status === 'delivered' && f.delivered_at !== undefined ? { delivered_at: isoDate(f.delivered_at, timeZone), delivered_at_ts: unixSeconds(f.delivered_at) } : {}),
  };
}
