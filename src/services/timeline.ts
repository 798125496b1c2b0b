// The decision timeline as the API shows it: GET /1/trigger/timeline (one user's entries, newest
// first, filtered by trigger, place and time), each pair's recent entries on trigger/state, and the
// entries of a replay. The engine writes the documents (src/engine/timeline.ts).
import { apiError, notFound } from '../errors.js';
import { detailView, reasonOf } from './timeline-reasons.js';
import { pageNames, type PageNames } from './timeline-names.js';
import { isoDate, parseDateInput, unixSeconds } from '../schemas/dates.js';
import { TIMELINE_PARAMS } from '../schemas/timeline.js';
import type { TimelineDoc, TimelineFilter } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { pagingObject } from './paging.js';
import { requestTimeZone } from './request-zone.js';

/** Entries per pair on trigger/state. */
export const STATE_TIMELINE = 20;

/** A trigger's decisions across users cover at most this span (trigger/timeline without user_id), and the last day without `after`. */
export const TRIGGER_TIMELINE_SPAN_MS = 31 * 86_400_000;
const DAY_MS = 86_400_000;

export { reasonOf, whereText } from './timeline-reasons.js';

/** The names beside an entry's ids (absent for a replay's draft objects: no names are looked up there). */
function namesOf(d: TimelineDoc, names: PageNames) {
  const key = names.triggers.get(d.trigger_id);
  return {
    trigger_key: key ?? null,
    ...(key === undefined ? { trigger_deleted: true } : {}),
    place_name: names.places.get(d.place_id) ?? null,
    layer_name: d.layer_id === null ? null : names.layers.get(d.layer_id) ?? null,
  };
}

/** One entry as the API shows it, dated in `tz`; with the page's names when given; `received`: with the time the service
 *  received its point (not for a replay). */
export function entryView(d: TimelineDoc, tz: string, names?: PageNames, received = true) {
  const earlier = names?.earlier.get(d._id);
  return {
    id: d._id,
    user_id: d.user_id,
    trigger_id: d.trigger_id,
    place_id: d.place_id,
    layer_id: d.layer_id,
    kind: d.kind,
    event: d.event,
    from: d.from,
    to: d.to,
    gate: d.gate,
    note: d.note,
    reason: reasonOf(d, tz, earlier),
    point: d.point
      ? { latitude: d.point.latitude, longitude: d.point.longitude, horizontal_accuracy: d.point.horizontal_accuracy, date: isoDate(d.point.date, tz), date_ts: unixSeconds(d.point.date) }
      : null,
    zone: d.zone,
    distance_m: d.distance_m,
    ...(d.boundary !== undefined ? { boundary: d.boundary } : {}),
    firing_id: d.firing_id,
    date: isoDate(d.at, tz),
    date_ts: unixSeconds(d.at),
    ...(d.detail !== undefined ? { detail: detailView(d.detail, tz, earlier) } : {}),
    ...(names !== undefined ? namesOf(d, names) : {}),
    // When the service received the point behind it (a dwell deadline: when it applied the tick).
    ...(received && d.received_at > 0 ? { received_at: isoDate(d.received_at, tz), received_at_ts: unixSeconds(d.received_at) } : {}),
  };
}

/** A page of entries as the API shows them, with their names (one lookup per page). */
export async function entryViews(ctx: ServiceContext, appId: string, docs: readonly TimelineDoc[], tz: string) {
  const names = await pageNames(ctx, appId, docs);
  return docs.map((d) => entryView(d, tz, names));
}

export type EntryView = ReturnType<typeof entryView>;

export interface TimelineQuery {
  user_id?: string;
  trigger_id?: string;
  place_id?: string;
  after?: string | number;
  before?: string | number;
  count?: number;
  offset?: number;
  limit?: number;
}

/** A parameter this method does not know is refused, not ignored: a misspelt filter would widen the answer. */
export function refuseUnknown(query: object, known: readonly string[]): void {
  const unknown = Object.keys(query).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw apiError('invalid_params', `Unknown parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (this method takes ${known.filter((k) => !k.endsWith('_token')).join(', ')})`);
}

/**
 * A trigger the application has, or had: a deleted trigger's decisions stay readable while its
 * timeline lasts (as its firings on trigger/history); an id it never had, or another
 * application's, is a 404.
 */
export async function requireTriggerOrTrace(ctx: ServiceContext, appId: string, triggerId: string): Promise<{ deleted: boolean }> {
  if (await ctx.store.triggers.get(appId, triggerId)) return { deleted: false };
  if (await ctx.store.timeline.hasTrigger(appId, triggerId)) return { deleted: true };
  throw notFound('Trigger');
}

const pageOf = (q: TimelineQuery) => ({ offset: q.offset ?? 0, limit: q.count ?? (q.limit === undefined ? 100 : q.limit === 0 ? 1000 : q.limit) });

/**
 * GET /1/trigger/timeline: one user's entries, newest first, dated in the request's zone; or, with
 * `trigger_id` and no `user_id`, the trigger's decisions across its users in a bounded span.
 */
export async function listTimeline(ctx: ServiceContext, appId: string, q: TimelineQuery, headerZone?: string) {
  refuseUnknown(q, TIMELINE_PARAMS);
  if (q.user_id === undefined) return triggerTimeline(ctx, appId, q, headerZone);
  const user = await ctx.store.users.get(appId, q.user_id);
  if (!user) throw notFound('User');
  const tz = requestTimeZone(headerZone, user);
  if (q.trigger_id) await requireTriggerOrTrace(ctx, appId, q.trigger_id);
  if (q.place_id && !(await ctx.store.places.get(appId, q.place_id))) throw notFound('Place');
  const filter: TimelineFilter = {};
  if (q.trigger_id) filter.trigger_id = q.trigger_id;
  if (q.place_id) filter.place_id = q.place_id;
  if (q.after !== undefined) filter.after = parseDateInput(q.after, 'after', tz);
  if (q.before !== undefined) filter.before = parseDateInput(q.before, 'before', tz);
  const page = pageOf(q);
  const { entries, total } = await ctx.store.timeline.ofUser(appId, user._id, filter, page);
  return { user_id: user._id, entries: await entryViews(ctx, appId, entries, tz), paging: pagingObject(page, total, entries.length) };
}

/**
 * A trigger's decisions across users ("who came near this place, and what was decided"), newest
 * first: `after` defaults to a day before `before` (or now), and the span is at most
 * TRIGGER_TIMELINE_SPAN_MS, so a count never walks more than a month of a trigger's entries.
 */
async function triggerTimeline(ctx: ServiceContext, appId: string, q: TimelineQuery, headerZone?: string) {
  if (q.trigger_id === undefined) throw apiError('missing_input', 'trigger/timeline needs user_id, or trigger_id for the trigger\'s decisions across users');
  const tz = headerZone ?? 'UTC';
  const { deleted } = await requireTriggerOrTrace(ctx, appId, q.trigger_id);
  if (q.place_id && !(await ctx.store.places.get(appId, q.place_id)) && !deleted) throw notFound('Place');
  const before = q.before !== undefined ? parseDateInput(q.before, 'before', tz) : ctx.now() + 1;
  const after = q.after !== undefined ? parseDateInput(q.after, 'after', tz) : before - DAY_MS;
  if (before - after > TRIGGER_TIMELINE_SPAN_MS) {
    throw apiError('invalid_input', `after and before may be at most ${TRIGGER_TIMELINE_SPAN_MS / DAY_MS} days apart for a trigger's decisions across users`);
  }
  const filter: TimelineFilter = { after, before };
  if (q.place_id) filter.place_id = q.place_id;
  const page = pageOf(q);
  const { entries, total } = await ctx.store.timeline.ofTrigger(appId, q.trigger_id, filter, page);
  return {
    trigger_id: q.trigger_id,
    after: isoDate(after, tz),
    before: isoDate(before, tz),
    entries: await entryViews(ctx, appId, entries, tz),
    paging: pagingObject(page, total, entries.length),
  };
}

/** The most recent entries of each of one user's pairs of a trigger, by place (trigger/state). */
export async function pairTimelines(ctx: ServiceContext, appId: string, userId: string, triggerId: string, places: number, tz: string) {
  const rows = await ctx.store.timeline.ofUserTrigger(appId, userId, triggerId, Math.min(1000, STATE_TIMELINE * Math.max(1, places)));
  const byPlace = new Map<string, TimelineDoc[]>();
  for (const r of rows) {
    let list = byPlace.get(r.place_id);
    if (!list) byPlace.set(r.place_id, (list = []));
    if (list.length < STATE_TIMELINE) list.push(r);
  }
  const names = await pageNames(ctx, appId, [...byPlace.values()].flat());
  return new Map([...byPlace].map(([place, docs]) => [place, docs.map((d) => entryView(d, tz, names))] as const));
}
