// A message to a user's phone (message triggers and message/send): stored first (message/list
// reads it, and it is the durable record), then written to the user's open live streams, then
// handed to the push providers for the user's device tokens. Storing is awaited; pushing is not,
// so a location update or message/send is never held up by Apple or Google.
import pRetry, { AbortError } from 'p-retry';
import type { AuthContext } from '../auth/authenticate.js';
import { apiError, notFound } from '../errors.js';
import { actingUser } from '../services/acting-user.js';
import type { ServiceContext } from '../services/context.js';
import { requestTimeZone } from '../services/request-zone.js';
import { pageRequest } from '../services/paging.js';
import type { MessageDoc, UserDoc } from '../store/documents.js';
import { newId } from '../store/ids.js';
import { DuplicateKeyError } from '../store/scoped-repo.js';
import { listMessages } from './messages.js';
import type { DeviceKind, PushMessage, PushResult } from './push/index.js';
import { pushProviders, runtimeOf } from './runtime.js';

export interface MessageInput {
  app_id: string;
  user_id: string;
  text: string;
  url?: string;
  layer_id?: string;
  trigger_id?: string;
  place_id?: string;
  /** A trigger's firing: becomes the message id, so replaying the firing stores nothing twice. */
  event_id?: string;
  /** Epoch ms; defaults to now. */
  date?: number;
}

export interface DeliverResult {
  message: MessageDoc;
  /** The message was already stored (a replayed firing). */
  duplicate: boolean;
  /** Written to at least one open live stream now. */
  live: boolean;
}

export function messageDoc(input: MessageInput, now: number): MessageDoc {
  return {
    _id: input.event_id ?? newId(),
    app_id: input.app_id,
    user_id: input.user_id,
    text: input.text,
    url: input.url ?? '',
    ...(input.layer_id ? { layer_id: input.layer_id } : {}),
    ...(input.trigger_id ? { trigger_id: input.trigger_id } : {}),
    ...(input.place_id ? { place_id: input.place_id } : {}),
    ...(input.event_id ? { event_id: input.event_id } : {}),
    date: input.date ?? now,
  };
}

export async function deliverMessage(ctx: ServiceContext, input: MessageInput): Promise<DeliverResult> {
  const doc = messageDoc(input, ctx.now());
  let message = doc;
  let duplicate = false;
  try {
    await ctx.store.messages.insert(doc);
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
    const existing = await ctx.store.messages.get(input.app_id, doc._id);
    if (!existing) throw err;
    // A replay after a crash: finish what the first run may not have done (live write, push).
    message = existing;
    duplicate = true;
  }
  const live = await deliverStored(ctx, message);
  return { message, duplicate, live };
}

/**
 * A stored message onward: to the user's open live streams unless one already took it, then to
 * the push providers unless they already had it. True when a live stream took it now.
 */
export async function deliverStored(ctx: ServiceContext, message: MessageDoc): Promise<boolean> {
  const live = message.delivered_at === undefined ? await runtimeOf(ctx).live.push(ctx, message) : false;
  if (message.pushed_at === undefined) startPush(ctx, message);
  return live;
}

function startPush(ctx: ServiceContext, message: MessageDoc): void {
  const rt = runtimeOf(ctx);
  const p: Promise<void> = pushToDevices(ctx, message)
    .catch((err) => rt.log.error({ err, message_id: message._id }, 'push failed'))
    .finally(() => rt.pushesInFlight.delete(p));
  rt.pushesInFlight.add(p);
}

const KINDS: DeviceKind[] = ['apns_live', 'apns_dev', 'gcm', 'c2dm'];

/** Sends to every device token of the user; dead tokens are removed from the user's devices. */
export async function pushToDevices(ctx: ServiceContext, message: MessageDoc): Promise<void> {
  const rt = runtimeOf(ctx);
  const providers = await pushProviders(ctx);
  const user = await ctx.store.users.get(message.app_id, message.user_id);
  if (!user) return;
  const payload: PushMessage = {
    message_id: message._id,
    text: message.text,
    ...(message.url ? { url: message.url } : {}),
    ...(message.layer_id ? { layer_id: message.layer_id } : {}),
    ...(message.trigger_id ? { trigger_id: message.trigger_id } : {}),
    ...(message.place_id ? { place_id: message.place_id } : {}),
  };
  for (const kind of KINDS) {
    const provider = providers[kind];
    if (!provider) continue;
    for (const token of user.devices[kind] ?? []) {
      const result = await sendWithRetry(() => provider.send(token, payload));
      if (result.ok) continue;
      rt.log.warn({ provider: provider.name, kind, error: result.error, message_id: message._id }, 'push not delivered');
      if (result.unregistered) await dropToken(ctx, user, kind, token);
    }
  }
  await ctx.store.messages.col.updateOne({ _id: message._id, app_id: message.app_id }, { $set: { pushed_at: ctx.now() } });
  message.pushed_at = ctx.now();
}

/** A couple of quick retries for throttling and provider hiccups; pushes are worthless hours late. */
async function sendWithRetry(send: () => Promise<PushResult>): Promise<PushResult> {
  let last: PushResult = { ok: false, unregistered: false, retryable: false, error: 'not sent' };
  try {
    await pRetry(
      async () => {
        last = await send();
        if (last.ok) return;
        if (!last.retryable || (last.retryAfterMs ?? 0) > 10_000) throw new AbortError(last.error);
        throw new Error(last.error);
      },
      { retries: 2, minTimeout: 500, factor: 2, randomize: true },
    );
  } catch {
    // `last` says what happened.
  }
  return last;
}

async function dropToken(ctx: ServiceContext, user: UserDoc, kind: DeviceKind, token: string): Promise<void> {
  await ctx.store.users.col.updateOne({ _id: user._id, app_id: user.app_id }, { $pull: { [`devices.${kind}`]: token } });
}

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
  const { message } = await deliverMessage(ctx, {
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
