// Which field a user write clashed on. The store only says "duplicate key" (the message differs by
// engine), so the holder is looked up: the caller hears about the field they must change.
import { apiError, type ApiError } from '../errors.js';
import type { UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';

type Written = Pick<Partial<UserDoc>, 'username' | 'email'>;

/**
 * The 409 for a DuplicateKeyError on `written` (a new user, or a $set on `selfId`). With
 * `usernameFromEmail`, the username was not sent but taken from the email address.
 */
export async function userClashError(
  ctx: ServiceContext, appId: string, written: Written, opts: { selfId?: string; usernameFromEmail?: boolean } = {},
): Promise<ApiError> {
  const heldByAnother = async (field: keyof Written) => {
    const value = written[field];
    if (value === undefined) return false;
    const holder = await (field === 'username' ? ctx.store.users.byUsername(appId, value) : ctx.store.users.byEmail(appId, value));
    return holder !== null && holder._id !== opts.selfId;
  };
  if (await heldByAnother('username')) {
    return apiError('username_exists', opts.usernameFromEmail
      ? 'The username taken from the email address is not available'
      : 'The requested username is not available');
  }
  if (await heldByAnother('email')) return apiError('username_exists', 'That email address is already in use');
  // The holder went away meanwhile: name both.
  return apiError('username_exists', 'The requested username or email address is not available');
}
