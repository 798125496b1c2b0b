// message/send and message/list: who may send to or read whose messages. Storing and delivering a
// message is delivery's (delivery/inbox.ts); showing one is delivery/messages.ts's messageItem.
import type { AuthContext } from '../auth/authenticate.js';
import { deliverMessage } from '../delivery/inbox.js';
import { messageItem } from '../delivery/messages.js';
import { apiError, notFound } from '../errors.js';
import { actingUser } from './acting-user.js';
import type { ServiceContext } from './context.js';
import { pageRequest, pagingObject, type PageRequest } from './paging.js';
import { requestTimeZone } from './request-zone.js';

export interface SendInput {
  user_id?: string;
  text: string;
  url?: string;
  layer_id?: string;
}

/**
 * message/send (reference §4.10). Recipients: the caller itself (user token), or a user of the
 * caller's application (application token, `user_id` required); anyone else is a 404, exactly as
 * a missing user. `layer_id` must be one of the application's layers.
 */
export async function sendMessage(ctx: ServiceContext, auth: AuthContext, input: SendInput) {
  const user = await actingUser(ctx, auth, input.user_id);
  const text = input.text.trim();
  if (text === '') throw apiError('missing_input', 'text is required');
  if (input.layer_id !== undefined && !(await ctx.store.layers.get(auth.app._id, input.layer_id))) throw notFound('Layer');
  const { message } = await deliverMessage(ctx.delivery, {
    app_id: auth.app._id, user_id: user._id, text, url: input.url, layer_id: input.layer_id,
  });
  return { result: 'ok' as const, username: user.username, user_id: user._id, message_id: message._id };
}

/**
 * message/list: a user token reads its own messages, an application token names the user. Dated
 * in the request's zone: `headerZone` (the Timezone header's), else the user's.
 */
export async function messagesOf(ctx: ServiceContext, auth: AuthContext, q: { user_id?: string; offset?: number; limit?: number }, headerZone?: string) {
  const user = await actingUser(ctx, auth, q.user_id);
  return listMessages(ctx, auth.app._id, user._id, pageRequest(q), requestTimeZone(headerZone, user));
}

/** Newest first, paged (reference §6.10). */
export async function listMessages(ctx: ServiceContext, appId: string, userId: string, page: PageRequest, timeZone = 'UTC') {
  const { items, total } = await ctx.store.messages.page(appId, userId, page);
  return { messages: items.map((m) => messageItem(m, timeZone)), paging: pagingObject(page, total, items.length) };
}

