// Push tokens a user's phone registers (account/set_apn_token, set_gcm_token, set_c2dm_token).
import type { UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';

export type DeviceKind = 'apns_live' | 'apns_dev' | 'gcm' | 'c2dm';

/** Registers a push token; a token lives in one list at a time, no duplicates. */
export async function addDeviceToken(ctx: ServiceContext, user: UserDoc, kind: DeviceKind, token: string) {
  // Two atomic updates, not a copy of the lists written back whole: phones register several
  // tokens at once, and parallel read-modify-writes lost some of them. A token moves between
  // kinds; MongoDB refuses $pull and $addToSet on one path in one update, hence two.
  const others = (Object.keys(user.devices) as DeviceKind[]).filter((k) => k !== kind);
  if (others.length > 0) await ctx.store.users.update(user.app_id, user._id, { $pull: Object.fromEntries(others.map((k) => [`devices.${k}`, token])) });
  await ctx.store.users.update(user.app_id, user._id, { $addToSet: { [`devices.${kind}`]: token } });
  return { response: 'ok' };
}
