// The user record as the API shows it (seed "User" table, reference §4.6 user/list).
import { hasPushToken } from '../delivery/push-token.js';
import type { UserDoc } from '../store/documents.js';
import { offsetString } from '../schemas/dates.js';

export { hasPushToken };

export function userRecord(u: UserDoc, now: number) {
  return {
    user_id: u._id,
    username: u.username,
    name: u.name,
    display_name: u.display_name,
    bio: u.bio,
    website: u.website,
    timezone: u.timezone,
    timezone_offset: offsetString(u.timezone, now),
    profile_image: u.profile_image,
    is_anonymous: u.is_anonymous,
    has_custom_username: u.has_custom_username,
    has_push_token: hasPushToken(u),
    public_location: u.public_location,
    public_geonotes: u.public_geonotes,
    public_geonote_email: u.public_geonote_email,
    email: u.email ?? '',
    phone: u.phone,
    twitter: u.twitter,
    facebook: u.facebook,
    extra: u.extra,
    devices: { apns_dev: u.devices.apns_dev, apns_live: u.devices.apns_live, c2dm: u.devices.c2dm, gcm: u.devices.gcm },
    ...(u.key !== undefined ? { key: u.key } : {}),
  };
}
