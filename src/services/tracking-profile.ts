// location/tracking_profile (reference §4.3): the tracking profile a user's phone should run, set
// from anywhere and picked up by the phone. Until one is set the answer is `adaptive`, the SDKs'
// default, dated when the user was created.
import { isoDate, unixSeconds } from '../schemas/dates.js';
import type { TrackingProfile, UserDoc } from '../store/documents.js';

export type { TrackingProfile };
import type { ServiceContext } from './context.js';

export const TRACKING_PROFILES: TrackingProfile[] = ['realtime', 'logging', 'adaptive', 'rough', 'off'];

function view(profile: TrackingProfile, at: number, timeZone: string) {
  return { profile, date: isoDate(at, timeZone), date_ts: unixSeconds(at) };
}

export function trackingProfile(user: UserDoc, timeZone: string) {
  const tp = user.tracking_profile;
  return tp ? view(tp.profile, tp.date, timeZone) : view('adaptive', user.created_at, timeZone);
}

export async function setTrackingProfile(ctx: ServiceContext, user: UserDoc, profile: TrackingProfile, timeZone: string) {
  const set = { profile, date: ctx.now() };
  await ctx.store.users.update(user.app_id, user._id, { set: { tracking_profile: set } });
  return view(set.profile, set.date, timeZone);
}
