// Delivery forensics (docs/api.md "Delivery forensics"): the attempt log of one firing
// (trigger/history/attempts) and a redelivery an application asks for (trigger/history/redeliver).
// A redelivery puts the finished callback back in the outbox with its stored payload, so it goes
// out with the same event id and bytes, through the delivery loop's one sender (SSRF guard,
// signing, deadline); this call makes its first attempt and reports it, the retry schedule the rest.
import { apiError, notFound } from '../errors.js';
import type { AttemptRecord, FiringRecord } from '../store/firings.js';
import { isoDate, unixSeconds } from '../schemas/dates.js';
import type { ServiceContext } from './context.js';
import { deliveryOf } from './history-delivery.js';
import { pagingObject, type PageRequest } from './paging.js';

/** How long this call holds its redelivery back from the loop's poll to make the first attempt itself. */
const HOLD_MS = 30_000;
/** A firing is redelivered at most once in this long, whatever its outcome. */
export const REDELIVERY_INTERVAL_MS = 10_000;

/** Who may read a firing: its application, or (a user token) its user. */
export interface FiringReader {
  appId: string;
  userId?: string;
}

/** The firing, or the 404 of a missing one: another application's, another user's, or an unlisted one. */
async function firingOf(ctx: ServiceContext, who: FiringReader, eventId: string): Promise<FiringRecord> {
  const f = await ctx.store.firings.get(eventId);
  if (!f || f.app_id !== who.appId || f.unlisted || (who.userId !== undefined && f.user_id !== who.userId)) throw notFound('Firing');
  return f;
}

export function attemptObject(a: AttemptRecord, timeZone: string) {
  return {
    attempt: a.attempt,
    date: isoDate(a.at, timeZone),
    date_ts: unixSeconds(a.at),
    duration_ms: a.duration_ms,
    outcome: a.outcome,
    ...(a.status_code !== undefined ? { status_code: a.status_code } : {}),
    ...(a.error_class !== undefined ? { error_class: a.error_class } : {}),
    ...(a.error !== undefined ? { error: a.error } : {}),
    ...(a.body !== undefined ? { body: a.body } : {}),
    ...(a.requested_by !== undefined ? { redelivery: { requested_by: a.requested_by } } : {}),
  };
}

/** A callback's delivery with when it was delivered and the redelivery last asked for. */
function deliveryDetail(f: FiringRecord, timeZone: string) {
  return {
    ...deliveryOf(f, undefined, timeZone),
    ...(f.redelivery_at !== undefined
      ? { redelivery: { requested_at: isoDate(f.redelivery_at, timeZone), requested_at_ts: unixSeconds(f.redelivery_at), requested_by: f.redelivery_by ?? 'api' } }
      : {}),
  };
}

/** trigger/history/attempts: one firing's attempts, oldest first, a page at a time. */
export async function listAttempts(ctx: ServiceContext, who: FiringReader, eventId: string, page: PageRequest, timeZone = 'UTC') {
  const f = await firingOf(ctx, who, eventId);
  // A message or a gated firing made no HTTP attempt: an empty log, not a 404.
  const { attempts, total } = f.type === 'callback' && !f.gate ? await ctx.store.attempts.page(eventId, page.offset, page.limit) : { attempts: [], total: 0 };
  return {
    event_id: f.event_id,
    type: f.type,
    ...(f.gate ? { gated: true, gate: f.gate } : {}),
    ...(f.type === 'callback' && !f.gate ? { url: f.url ?? '', delivery: deliveryDetail(f, timeZone) } : {}),
    attempts: attempts.map((a) => attemptObject(a, timeZone)),
    paging: pagingObject(page, total, attempts.length),
  };
}

/** trigger/history/redeliver: sends a finished callback again, same event id and payload. */
export async function redeliver(ctx: ServiceContext, appId: string, eventId: string, by: string, timeZone = 'UTC') {
  const f = await firingOf(ctx, { appId }, eventId);
  if (f.type !== 'callback' || f.gate) throw apiError('cannot_redeliver', 'Only a callback firing that was sent can be redelivered');
  if (f.status === 'pending' || f.status === 'delivering') {
    throw apiError('redelivery_pending', 'This callback is still being delivered; wait for its outcome (trigger/history/attempts)');
  }
  const now = ctx.now();
  if (f.redelivery_at !== undefined && now - f.redelivery_at < REDELIVERY_INTERVAL_MS) {
    const wait = Math.ceil((f.redelivery_at + REDELIVERY_INTERVAL_MS - now) / 1000);
    throw apiError('too_many_requests', `This callback was redelivered moments ago; try again in ${wait} s`, { 'retry-after': String(wait) });
  }
  const rt = ctx.delivery;
  const hold = rt.dispatcher ? now + HOLD_MS : now;
  const reopened = await ctx.store.firings.reopen(appId, eventId, by, now, hold);
  if (!reopened) {
    // Between the read and the write: another redelivery won, or retention took the payload.
    const again = await ctx.store.firings.get(eventId);
    if (again?.status === 'pending' || again?.status === 'delivering') throw apiError('redelivery_pending', 'This callback is already being redelivered');
    throw apiError('cannot_redeliver', 'This callback\'s payload is no longer kept (DELIVERY_RETENTION_DAYS); it cannot be redelivered');
  }
  // Without a loop here (another node drains the outbox) it is due now, for that loop's poll.
  const report = rt.dispatcher ? await rt.dispatcher.deliverNow(eventId) : null;
  if (!report && rt.dispatcher) {
    // Not sent here after all (shutting down): due now for the poll.
    await ctx.store.firings.releaseHold(eventId, hold, ctx.now());
    rt.dispatcher.wake();
  }
  const after = (await ctx.store.firings.get(eventId)) ?? reopened;
  const log = await ctx.store.attempts.list(eventId);
  const last = log.at(-1);
  const own = last && last.requested_by === by && last.at >= now ? last : undefined;
  const status = report?.status ?? 'pending';
  return {
    result: status === 'delivered' ? 'sent' as const : status === 'dead' ? 'failed' as const : 'queued' as const,
    event_id: eventId,
    delivery: deliveryDetail(after, timeZone),
    ...(own ? { attempt: attemptObject(own, timeZone) } : {}),
  };
}
