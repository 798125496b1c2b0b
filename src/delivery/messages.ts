// Stored messages (the `messages` collection) as the API and the live stream show them. Kept apart
// from inbox.ts so the live stream can read and mark messages without depending on delivery.
import { isoDate, unixSeconds } from '../schemas/dates.js';
import type { MessageDoc } from '../store/documents.js';
import type { StoreAccess } from './types.js';

/** One message/list item; the live stream sends the same object. */
export function messageItem(m: MessageDoc, timeZone = 'UTC') {
  return {
    message_id: m._id,
    type: 'message' as const,
    date: isoDate(m.date, timeZone),
    date_ts: unixSeconds(m.date),
    text: m.text,
    url: m.url,
    ...(m.layer_id ? { layer_id: m.layer_id } : {}),
    ...(m.trigger_id ? { trigger_id: m.trigger_id } : {}),
    ...(m.place_id ? { place_id: m.place_id } : {}),
    ...(m.group_token ? { group_token: m.group_token } : {}),
    ...(m.data ? { data: m.data } : {}),
    delivered: m.delivered_at !== undefined ? 1 : 0,
    ...(m.delivered_at !== undefined ? { delivered_ts: unixSeconds(m.delivered_at) } : {}),
  };
}

export type MessageItem = ReturnType<typeof messageItem>;

/** How many queued messages a stream reads at a time while it replays the queue. */
export const QUEUE_PAGE = 500;

/**
 * One page of the queue a stream replays on connect, oldest first (date, then id), after the last
 * message of the previous page: the user's messages that were undelivered at `since`, the moment
 * the socket registered. "At `since`" includes those another socket of the user has taken since
 * then (delivered_at >= since): that socket's replay may run ahead of this one, and the page after
 * it must not skip what it marked.
 */
export function queuePage(
  ctx: StoreAccess, appId: string, userId: string, since: number, after?: Pick<MessageDoc, 'date' | '_id'>, limit = QUEUE_PAGE,
): Promise<MessageDoc[]> {
  return ctx.store.messages.queue(appId, userId, since, after, limit);
}

/**
 * Records that a socket took the message. Conditional, so two sockets (or two nodes) racing mark
 * it once. (A trigger's message is its firing's delivery: trigger/history reads it from here.)
 */
export async function markDelivered(ctx: StoreAccess, m: MessageDoc, at: number): Promise<boolean> {
  if (!(await ctx.store.messages.markDelivered(m.app_id, m._id, at))) return false;
  m.delivered_at = at;
  return true;
}
