// trigger/history (reference §4.1): the firings of an application's triggers, newest first, with
// the trigger, place (with visits) and layer (with bounds) as they are now, and where the
// delivery stands (a callback's delivery state; a message is delivered when a phone's live
// stream takes it). Firings are stored by delivery/firings.ts and kept up to date by the delivery loop.
import { deliveryOf, firingMessages } from './history-delivery.js';
import { notFound } from '../errors.js';
import type { LayerDoc, PlaceDoc, TriggerDoc } from '../store/documents.js';
import type { HistoryQuery } from '../store/firings.js';
import type { ServiceContext } from './context.js';
import { isFixedOffset, isoDate, offsetMinutes, unixSeconds } from '../schemas/dates.js';
import { layerObject, placeObject } from './geo-objects.js';
import { pagingObject, type PageRequest } from './paging.js';
import { requestTimeZone } from './request-zone.js';
import { DEFAULT_LATE_AFTER_MS, latenessOf, type LatenessRules } from './firing-lateness.js';

export interface HistoryFilter {
  user_id?: string;
  layer_id?: string;
  place_id?: string;
  trigger_id?: string;
  /** Also list the firings the gates stopped, marked `gated` with their `gate` (off: as before). */
  include_gated?: boolean;
  /** Seconds after its time beyond which a firing says why it was late (default 60). */
  late_after?: number;
}

/** "May 4, 10:45am", the reference's display_date, in the viewer's timezone. */
export function displayDate(at: number, timeZone = 'UTC'): string {
  // A fixed offset (a Timezone header without a zone name) is no zone Intl knows: shift, show as UTC.
  const fixed = isFixedOffset(timeZone);
  const shown = fixed ? at + offsetMinutes(timeZone, at) * 60_000 : at;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: fixed ? 'UTC' : timeZone, month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', hour12: true })
      .formatToParts(new Date(shown))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.month} ${parts.day}, ${parts.hour}:${parts.minute}${String(parts.dayPeriod).toLowerCase()}`;
}

/**
 * Dated in the request's zone: `headerZone` (the Timezone header's), else the profile zone of the
 * user named by `filter.user_id` (a user token's own, or the one an application token names), else UTC.
 */
export async function listTriggerHistory(ctx: ServiceContext, appId: string, filter: HistoryFilter, page: PageRequest, headerZone?: string) {
  // A filter naming something that is not the application's is a 404, as for a missing one, not
  // an empty list: the answer must not differ between "yours, no firings" and "not yours".
  const user = filter.user_id ? await ctx.store.users.get(appId, filter.user_id) : null;
  if (filter.user_id && !user) throw notFound('User');
  const timeZone = requestTimeZone(headerZone, user);
  if (filter.layer_id && !(await ctx.store.layers.get(appId, filter.layer_id))) throw notFound('Layer');
  if (filter.place_id && !(await ctx.store.places.get(appId, filter.place_id))) throw notFound('Place');
  const q: HistoryQuery = { app_id: appId };
  if (filter.user_id) q.user_id = filter.user_id;
  if (filter.layer_id) q.layer_id = filter.layer_id;
  if (filter.place_id) q.place_id = filter.place_id;
  if (filter.trigger_id) q.trigger_id = filter.trigger_id;
  // Clients that read only triggered_on never see a firing that did not happen.
  if (filter.include_gated) q.gated = true;
  const [rows, total] = await Promise.all([ctx.store.firings.history(q, page.offset, page.limit), ctx.store.firings.count(q)]);
  // A deleted trigger's firings stay listed by its id; an id this application never had is a 404.
  if (filter.trigger_id && total === 0 && !(await ctx.store.triggers.get(appId, filter.trigger_id))) throw notFound('Trigger');
  const messages = await firingMessages(ctx, appId, rows);
  // One read per distinct trigger, place and layer on the page, not per row.
  const load = async <T extends { _id: string; app_id: string }>(repo: { get(a: string, id: string): Promise<T | null> }, ids: string[]) => {
    const docs = await Promise.all([...new Set(ids)].map((id) => repo.get(appId, id)));
    const found = new Map<string, T>();
    for (const d of docs) if (d) found.set(d._id, d);
    return found;
  };
  const [triggers, places, layers] = await Promise.all([
    load<TriggerDoc>(ctx.store.triggers, rows.map((r) => r.trigger_id)),
    load<PlaceDoc>(ctx.store.places, rows.map((r) => r.place_id)),
    load<LayerDoc>(ctx.store.layers, rows.map((r) => r.layer_id)),
  ]);
  const bounds = new Map(await Promise.all([...layers.keys()].map(async (id) => [id, await ctx.delivery.bounds.get(appId, id)] as const)));
  const now = ctx.now();
  const rules: LatenessRules = {
    lateAfterMs: filter.late_after !== undefined ? filter.late_after * 1000 : DEFAULT_LATE_AFTER_MS,
    dwellGraceMs: ctx.config.dwellGraceMs,
    dwellToleranceMs: ctx.config.dwellToleranceMs,
  };
  const entries = rows.map((r) => {
    const late = latenessOf(r, rules);
    const t = triggers.get(r.trigger_id);
    const p = places.get(r.place_id);
    const l = layers.get(r.layer_id);
    return {
      event_id: r.event_id,
      date: isoDate(r.date, timeZone),
      date_ts: unixSeconds(r.date),
      display_date: displayDate(r.date, timeZone),
      ...(r.received_at !== undefined ? { received_at: isoDate(r.received_at, timeZone), received_at_ts: unixSeconds(r.received_at) } : {}),
      user_id: r.user_id,
      type: r.type,
      triggered_on: r.triggered_on,
      triggered_delay: String(r.delay_s),
      ...(r.run ? { run: 1 } : {}),
      // A gated firing sent nothing: its gate instead of a delivery.
      ...(r.gate ? { gated: true, gate: r.gate } : { delivery: deliveryOf(r, messages.get(r.event_id), timeZone) }),
      ...(late ? { late } : {}),
      // Deleted since the firing: only the ids remain.
      trigger: t
        ? {
            trigger_id: t._id,
            ...(t.on_layer ? { layer_id: t.layer_id } : { place_id: t.place_id }),
            type: t.type, trigger_on: t.trigger_on, trigger_after: t.trigger_after, one_time: t.one_time, text: t.text, extra: t.extra,
          }
        : { trigger_id: r.trigger_id },
      place: p ? placeObject(p, now, timeZone) : { place_id: r.place_id },
      layer: l ? { ...layerObject(l), user_id: appId, bounds: bounds.get(l._id) ?? false } : { layer_id: r.layer_id },
    };
  });
  return { history: entries, paging: pagingObject(page, total, rows.length) };
}
