// message/device payloads (reference §4.10) on their way to a user's live stream: kept in the
// store (so any node's stream can take them) until one stream took them or they expired. Unlike a
// message, a payload is not kept once delivered, and never pushed.
import { isoDate, unixSeconds } from '../schemas/dates.js';
import type { DeviceMessageDoc } from '../store/documents.js';
import type { StoreAccess } from './types.js';

/** How long a payload waits for a stream: the reference drops it after 30 seconds. */
export const DEVICE_MESSAGE_TTL_MS = 30_000;

/** The frame a stream gets: {"type":"device","device":{...}}. */
export function deviceItem(d: DeviceMessageDoc, timeZone = 'UTC') {
  return {
    device_message_id: d._id,
    ...(d.layer_id ? { layer_id: d.layer_id } : {}),
    data: d.data,
    date: isoDate(d.date, timeZone),
    date_ts: unixSeconds(d.date),
  };
}

/** The user's payloads still waiting at `now`, oldest first; expired ones are removed on the way. */
export async function waitingPayloads(ctx: StoreAccess, appId: string, userId: string, now: number): Promise<DeviceMessageDoc[]> {
  await ctx.store.deviceMessages.removeExpiredOf(appId, userId, now);
  return ctx.store.deviceMessages.waiting(appId, userId, now);
}

/** Waiting payloads of any of `userIds` (the MongoDB poll of the users connected to this node). */
export function waitingPayloadsOf(ctx: StoreAccess, userIds: string[], now: number): Promise<DeviceMessageDoc[]> {
  return ctx.store.deviceMessages.waitingOf(userIds, now, 1000);
}

/** A stream took it: no other stream (or node) sends it again. */
export async function payloadTaken(ctx: StoreAccess, d: DeviceMessageDoc): Promise<void> {
  await ctx.store.deviceMessages.take(d.app_id, d._id);
}

export async function storePayload(ctx: StoreAccess, d: DeviceMessageDoc): Promise<void> {
  await ctx.store.deviceMessages.removeExpiredOf(d.app_id, d.user_id, d.date);
  await ctx.store.deviceMessages.insert(d);
}
