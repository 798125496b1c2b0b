// user/secure_delete/:id (reference §4.6): a deletion confirmed by a second call. The first call
// answers a token; the same call with that token erases the user, everything deleteUser erases
// (profile, tokens, history, messages, geonotes and their layer, share links). The token is an
// HMAC of the user under the application's secret hash: nothing is stored between the two calls,
// and a token is good for that one user only. The erasure is done when the confirming call
// returns, so it answers "successful" at once (the reference's queued/in_progress steps, which
// clients poll through, are skipped).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { apiError } from '../errors.js';
import type { ApplicationDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { requireUser } from './acting-user.js';
import { deleteUser } from './users.js';

function tokenFor(app: ApplicationDoc, userId: string, createdAt: number): string {
  return createHmac('sha256', app.client_secret_hash).update(`secure_delete:${userId}:${createdAt}`).digest('base64url').slice(0, 20);
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export async function secureDelete(ctx: ServiceContext, app: ApplicationDoc, userId: string, token: string | undefined) {
  const user = await requireUser(ctx, app._id, userId);
  const expected = tokenFor(app, user._id, user.created_at);
  if (token === undefined || token === '') return { token: expected };
  if (!sameText(token, expected)) throw apiError('invalid_input', 'The token is not the one this user\'s secure_delete answered');
  await deleteUser(ctx, app._id, user._id);
  return { delete: 'successful' as const, status: 'This user has been successfully deleted' };
}
