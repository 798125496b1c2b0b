// message/device (reference §4.10): a JSON payload for the app on the user's phone, over the live
// stream (/1/stream) only. Kept for DEVICE_MESSAGE_TTL_MS when no stream of the user is open, then
// dropped; never pushed, never listed by message/list.
import type { AuthContext } from '../auth/authenticate.js';
import { DEVICE_MESSAGE_TTL_MS, storePayload } from '../delivery/device-messages.js';
import { notFound } from '../errors.js';
import type { DeviceMessageDoc } from '../store/documents.js';
import { newId } from '../store/ids.js';
import { actingUser } from './acting-user.js';
import type { ServiceContext } from './context.js';

export interface DeviceInput {
  user_id?: string;
  layer_id?: string;
  data: Record<string, unknown>;
}

/** Recipients as message/send's: the caller itself (user token) or a user of the caller's application. */
export async function sendToDevice(ctx: ServiceContext, auth: AuthContext, input: DeviceInput) {
  const user = await actingUser(ctx, auth, input.user_id);
  if (input.layer_id !== undefined && !(await ctx.store.layers.get(auth.app._id, input.layer_id))) throw notFound('Layer');
  const now = ctx.now();
  const doc: DeviceMessageDoc = {
    _id: newId(), app_id: auth.app._id, user_id: user._id, ...(input.layer_id ? { layer_id: input.layer_id } : {}),
    data: input.data, date: now, expires_at: now + DEVICE_MESSAGE_TTL_MS,
  };
  // Stored first: a stream that connects meanwhile (here or on another node) finds it.
  await storePayload(ctx, doc);
  await ctx.delivery.live.pushPayload(ctx.delivery, doc);
  return { result: 'ok' as const, username: user.username, user_id: user._id };
}
