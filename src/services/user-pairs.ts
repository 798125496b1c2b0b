// trigger/state?user_id=…&include_outside=1: every (trigger, place) pair a user is evaluated
// against, with its state, paged: the machines of the pairs that are not outside, and for the
// others why they are outside (machine-inspector.ts outsideView), without knowing a trigger id.
// The pairs are the triggers of the user's layers (the application's default layer and the ones
// they are subscribed to) at each of their places, ordered by layer, trigger and place.
import { apiError } from '../errors.js';
import { isoDate, unixSeconds } from '../schemas/dates.js';
import type { PlaceDoc, TriggerDoc } from '../store/documents.js';
import { requireUser } from './acting-user.js';
import type { ServiceContext } from './context.js';
import { machineView, outsideView } from './machine-inspector.js';
import { pagingObject, type PageRequest } from './paging.js';
import { requestTimeZone } from './request-zone.js';

/** Pairs a user's list considers at most: a user on layers with more is refused, not read in part. */
export const MAX_USER_PAIRS = 20_000;

/** One user's pairs, each with its state; outside ones explained. Dated as trigger/state. */
export async function userPairs(ctx: ServiceContext, appId: string, userId: string, page: PageRequest, headerZone?: string) {
  const user = await requireUser(ctx, appId, userId);
  const tz = requestTimeZone(headerZone, user);
  const [app, subs, states, last] = await Promise.all([
    ctx.store.applications.get(appId),
    ctx.store.subscriptions.forUser(appId, user._id),
    ctx.store.machines.ofUser(appId, user._id),
    ctx.store.lastLocations.of(appId, user._id),
  ]);
  const layerIds = [...new Set([app?.default_layer_id, ...subs.map((s) => s.layer_id)].filter((id): id is string => id !== undefined))];
  const pairs: { trigger: TriggerDoc; place: PlaceDoc }[] = [];
  for (const layerId of layerIds) {
    const [triggers, places] = await Promise.all([ctx.store.triggers.list(appId, { layerId }), ctx.store.places.onLayer(appId, layerId)]);
    const byId = new Map(places.map((p) => [p._id, p]));
    for (const t of triggers) {
      const at = t.on_layer ? places : t.place_id !== undefined && byId.has(t.place_id) ? [byId.get(t.place_id)!] : [];
      for (const p of at) pairs.push({ trigger: t, place: p });
      if (pairs.length > MAX_USER_PAIRS) {
        throw apiError('invalid_input', `The user is evaluated against more than ${MAX_USER_PAIRS} (trigger, place) pairs: ask trigger/state/:id per trigger instead`);
      }
    }
  }
  const byPair = new Map(states.map((s) => [`${s.trigger_id}:${s.place_id}`, s]));
  const now = ctx.now();
  const shown = pairs.slice(page.offset, page.offset + page.limit);
  const machines = shown.map(({ trigger, place }) => {
    const s = byPair.get(`${trigger._id}:${place._id}`);
    const view = s ? machineView(s, tz) : outsideView({ user, trigger, place, last, onLayer: true, now, tz });
    return { ...view, trigger_key: trigger.key ?? null, place_name: place.name };
  });
  return {
    user_id: user._id,
    last_location: last ? { date: isoDate(last.date, tz), date_ts: unixSeconds(last.date), latitude: last.latitude, longitude: last.longitude, horizontal_accuracy: last.horizontal_accuracy } : null,
    machines,
    paging: pagingObject(page, pairs.length, machines.length),
  };
}
