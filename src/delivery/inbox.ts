// A message to a user's phone (message triggers and message/send): stored first (message/list
// reads it, and it is the durable record), then written to the user's open live streams, then
// handed to the push providers for the user's device tokens. Storing is awaited; pushing is not,
// so a location update or message/send is never held up by Apple or Google.
import pRetry, { AbortError } from 'p-retry';
import type { MessageDoc, UserDoc } from '../store/documents.js';
import { newId } from '../store/ids.js';
import { DuplicateKeyError } from '../store/duplicate-key.js';
import type { DeviceKind, PushMessage, PushResult } from './push/index.js';
import type { DeliveryRuntime } from './runtime.js';

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
  /** A group message (group/message): the group's token and the fields posted beyond text and url. */
  group_token?: string;
  data?: Record<string, unknown>;
  /** False: to the inbox and live streams only (a group message pushes to the members it names). */
  push?: boolean;
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
    ...(input.group_token ? { group_token: input.group_token } : {}),
    ...(input.data ? { data: input.data } : {}),
    date: input.date ?? now,
    // Nothing to push counts as pushed: deliverStored then leaves the providers out.
    ...(input.push === false ? { pushed_at: now } : {}),
  };
}

export async function deliverMessage(ctx: DeliveryRuntime, input: MessageInput): Promise<DeliverResult> {
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

/** Stores trigger messages (ids = event ids) in one write; returns the ids that were stored already (a replay). */
export function storeMessages(rt: DeliveryRuntime, docs: readonly MessageDoc[]): Promise<Set<string>> {
  return docs.length === 0 ? Promise.resolve(new Set()) : rt.store.messages.insertNew(docs);
}

/**
 * A stored message onward: to the user's open live streams unless one already took it, then to
 * the push providers unless they already had it. True when a live stream took it now.
 */
export async function deliverStored(ctx: DeliveryRuntime, message: MessageDoc): Promise<boolean> {
  const live = message.delivered_at === undefined ? await ctx.live.push(ctx, message) : false;
  if (message.pushed_at === undefined) startPush(ctx, message);
  return live;
}

function startPush(rt: DeliveryRuntime, message: MessageDoc): void {
  const p: Promise<void> = pushToDevices(rt, message)
    .catch((err) => rt.log.error({ err, message_id: message._id }, 'push failed'))
    .finally(() => rt.pushesInFlight.delete(p));
  rt.pushesInFlight.add(p);
}

const KINDS: DeviceKind[] = ['apns_live', 'apns_dev', 'gcm', 'c2dm'];

/** Sends to every device token of the user; dead tokens are removed from the user's devices. */
export async function pushToDevices(ctx: DeliveryRuntime, message: MessageDoc): Promise<void> {
  const providers = await ctx.pushProviders();
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
      ctx.log.warn({ provider: provider.name, kind, error: result.error, message_id: message._id }, 'push not delivered');
      if (result.unregistered) await dropToken(ctx, user, kind, token);
    }
  }
  await ctx.store.messages.markPushed(message.app_id, message._id, ctx.now());
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

async function dropToken(ctx: DeliveryRuntime, user: UserDoc, kind: DeviceKind, token: string): Promise<void> {
  await ctx.store.users.removeDevice(user.app_id, user._id, kind, token);
}
