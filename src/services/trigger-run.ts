// trigger/run/:id (reference §4.1): perform a trigger's action now, with a real payload, so a
// developer can watch their receiver or phone react. It goes through performFiring() like a real
// firing (same payload, same outbox, same signing); the only differences are a fresh event id, a
// point at the place's centre, and an immediate single attempt for callbacks so the answer can
// say whether the receiver took it. Without user_id a callback carries a placeholder "test" user.
import { performFiring, type Resolved } from '../delivery/firings.js';
import { placeholderUser } from '../delivery/payload.js';
import { apiError, notFound } from '../errors.js';
import type { PlaceDoc } from '../store/documents.js';
import { newRandomString } from '../store/ids.js';
import type { ServiceContext } from './context.js';

const HOLD_MS = 30_000;

export interface RunInput {
  user_id?: string;
  place_id?: string;
}

export async function runTrigger(ctx: ServiceContext, appId: string, triggerId: string, input: RunInput) {
  const app = await ctx.store.applications.get(appId);
  const trigger = app ? await ctx.store.triggers.get(appId, triggerId) : null;
  if (!app || !trigger) throw notFound('Trigger');

  let place: PlaceDoc | null;
  if (trigger.place_id && !trigger.on_layer) {
    // Any other place, even one of the application's, is not a place this trigger can fire on.
    if (input.place_id !== undefined && input.place_id !== trigger.place_id) throw notFound('Place');
    place = await ctx.store.places.get(appId, trigger.place_id);
    if (!place) throw notFound('Place');
  } else if (input.place_id !== undefined) {
    place = await ctx.store.places.get(appId, input.place_id);
    if (place?.layer_id !== trigger.layer_id) throw notFound('Place');
  } else {
    // The reference picks a random place of the layer; the first one is as good and repeatable.
    place = await ctx.store.places.firstOnLayer(appId, trigger.layer_id);
    if (!place) throw apiError('invalid_input', 'The trigger\'s layer has no places to run it on; add a place first');
  }
  const layer = await ctx.store.layers.get(appId, place.layer_id);
  if (!layer) throw notFound('Layer');

  const now = ctx.now();
  let user = input.user_id !== undefined ? await ctx.store.users.get(appId, input.user_id) : null;
  if (input.user_id !== undefined && !user) throw notFound('User');
  if (!user && trigger.type === 'message') {
    throw apiError('missing_input', 'user_id is required to run a message trigger: the message goes to that user');
  }
  const realUser = user !== null;
  user ??= placeholderUser(appId, now);

  const r: Resolved = { app, trigger, place, layer, user };
  const eventId = `run_${newRandomString(22)}`;
  const rt = ctx.delivery;
  // With a delivery loop here, the callback is held back from the poll for a moment so this call
  // makes the first attempt itself (and can report it); if this process dies, the hold runs out.
  const hold = rt.dispatcher ? now + HOLD_MS : undefined;
  const performed = await performFiring(rt, r, {
    event_id: eventId,
    triggered_on: trigger.trigger_on,
    delay_s: trigger.trigger_after,
    at: now,
    received_at: now,
    location: { date: now, latitude: place.latitude, longitude: place.longitude, horizontal_accuracy: 0, raw: { trigger_run: true } },
  }, { history: realUser, run: true, wake: false, callbackDueAt: hold });

  if (performed.type === 'message') {
    return {
      result: performed.delivered.live ? 'sent' : 'queued',
      type: 'message' as const,
      message: trigger.text,
      event_id: eventId,
      message_id: performed.delivered.message._id,
      user_id: user._id,
      payload: performed.payload,
    };
  }
  // One attempt now; if it fails the callback stays in the outbox and the normal schedule takes over.
  const report = rt.dispatcher ? await rt.dispatcher.deliverNow(eventId) : null;
  if (!report && hold !== undefined) {
    // Not sent here after all (shutting down): release the hold so the poll takes it at once.
    await ctx.store.firings.releaseHold(eventId, hold, ctx.now());
    rt.dispatcher?.wake();
  }
  // The outcome of this call's own attempt, not a later read: the schedule may already be retrying.
  const d = report ?? { status: 'pending' as const, attempts: 0 };
  return {
    result: d.status === 'delivered' ? 'sent' : d.status === 'dead' ? 'failed' : 'queued',
    type: 'callback' as const,
    url: trigger.url,
    event_id: eventId,
    delivery: {
      status: d.status,
      attempts: d.attempts,
      ...(d.last_status !== undefined ? { last_status: d.last_status } : {}),
      ...(d.last_error !== undefined && d.status !== 'delivered' ? { last_error: d.last_error } : {}),
    },
    payload: performed.payload,
  };
}
