// Whether a user has a device a push provider can reach: the payload and the profile both say so.
import type { UserDoc } from '../store/documents.js';

export function hasPushToken(u: UserDoc): 0 | 1 {
  const d = u.devices;
  return d.apns_dev.length + d.apns_live.length + d.c2dm.length + d.gcm.length > 0 ? 1 : 0;
}
