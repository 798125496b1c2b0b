// account/privacy and account/connections (reference §4.9), for the caller's own user.
import { isoDate } from '../schemas/dates.js';
import type { ApplicationDoc, Flag, UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';

export interface PrivacyInput {
  public_location?: Flag | boolean;
  public_geonotes?: Flag | boolean;
  public_geonote_email?: Flag | boolean;
  /** Days a new share link lasts by default; 0: never expires. */
  default_share_expiration?: number;
}

const bit = (v: Flag | boolean): Flag => (v === true || v === 1 ? 1 : 0);

/** The reference shows every field as a string. */
export function privacyOf(user: UserDoc) {
  return {
    public_location: String(user.public_location),
    public_geonotes: String(user.public_geonotes),
    public_geonote_email: String(user.public_geonote_email),
    default_share_expiration: String(user.default_share_expiration ?? 0),
  };
}

export async function setPrivacy(ctx: ServiceContext, user: UserDoc, input: PrivacyInput) {
  const set: Partial<UserDoc> = {};
  for (const k of ['public_location', 'public_geonotes', 'public_geonote_email'] as const) if (input[k] !== undefined) set[k] = bit(input[k]);
  if (input.default_share_expiration !== undefined) set.default_share_expiration = input.default_share_expiration;
  if (Object.keys(set).length > 0) await ctx.store.users.update(user.app_id, user._id, { set });
  return { result: 'ok' as const };
}

/** account/connections: a user of this service is connected to its own application only, since it was created. */
export function connectionsOf(app: ApplicationDoc, user: UserDoc, timeZone: string) {
  return [{ application_name: app.name, application_description: '', application_url: '', date_approved: isoDate(user.created_at, timeZone) }];
}
