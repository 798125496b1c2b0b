// Push tokens a user's phone registers (account/set_apn_token, set_gcm_token, set_c2dm_token).
import type { UserDoc } from '../store/documents.js';
import type { DeviceKind } from '../store/repos/index.js';
import type { ServiceContext } from './context.js';

export type { DeviceKind };

/** Registers a push token; a token lives in one list at a time, no duplicates. */
export async function addDeviceToken(ctx: ServiceContext, user: UserDoc, kind: DeviceKind, token: string) {
  // One atomic change in the store, not a copy of the lists written back whole: phones register
  // several tokens at once, and parallel read-modify-writes lost some of them.
  await ctx.store.users.addDevice(user.app_id, user._id, kind, token);
  return { response: 'ok' };
}
