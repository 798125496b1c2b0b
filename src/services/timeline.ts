// The decision timeline as the API shows it: GET /1/trigger/timeline (one user's entries, newest
// first, filtered by trigger, place and time), each pair's recent entries on trigger/state, and the
// entries of a replay. The engine writes the documents (src/engine/timeline.ts).
import { apiError, notFound } from '../errors.js';
import { isoDate, parseDateInput, unixSeconds } from '../schemas/dates.js';
import { TIMELINE_PARAMS } from '../schemas/timeline.js';
import type { TimelineDoc, TimelineFilter } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { pagingObject } from './paging.js';
import { requestTimeZone } from './request-zone.js';

/** Entries per pair on trigger/state. */
export const STATE_TIMELINE = 20;

const metres = (n: number | null) => (n === null ? '' : ` (${Math.round(n)} m from its centre)`);
const about = (n: number) => (n < 1 ? 'less than 1' : String(Math.round(n)));

/** Where the point was, in words: from a circle's centre, or against a polygon's or corridor's edge and margin. */
export function whereText(distanceM: number | null, boundary: TimelineDoc['boundary']): string {
  if (boundary === undefined) return metres(distanceM);
  const edge = `the ${boundary.shape}'s edge`;
  const o = boundary.outside_m;
  if (o <= 0) return ` (${about(-o)} m inside ${edge})`;
  const margin = `the ${Math.round(boundary.margin_m)} m leave margin`;
  return o <= boundary.margin_m ? ` (${about(o)} m outside ${edge}, inside ${margin})` : ` (${about(o)} m outside ${edge}, past ${margin})`;
}

const GATE_TEXT: Record<NonNullable<TimelineDoc['gate']>, string> = {
  date_window: 'the place is outside its date window (date_from/date_to)',
  time_window: 'it is outside the daily time window (time_from/time_to, in the user\'s timezone)',
  rate_limit: 'the trigger fired for this user less than the layer\'s trigger_rate_limit before',
  one_time_spent: 'this one-time trigger has already fired for this user',
  trigger_inactive: 'the trigger is not active then (outside its own date_from/date_to)',
};

const EVENT_TEXT = { enter: 'on entering', leave: 'on leaving', dwell: 'after the dwell' } as const;

/** The entry in a sentence. */
export function reasonOf(d: Pick<TimelineDoc, 'kind' | 'event' | 'from' | 'to' | 'gate' | 'note' | 'distance_m' | 'boundary' | 'point'>): string {
  const where = whereText(d.distance_m, d.boundary);
  switch (d.kind) {
    case 'fired':
      return d.event === 'dwell'
        ? `Fired after the dwell: the user stayed inside until the deadline (${d.from} → ${d.to}).`
        : `Fired ${EVENT_TEXT[d.event ?? 'enter']}${where} (${d.from} → ${d.to}).`;
    case 'gated': {
      const why = GATE_TEXT[d.gate ?? 'rate_limit'];
      if (d.gate === 'one_time_spent') return `The user ${d.event === 'leave' ? 'left' : 'entered'} again${where}, but ${why}: nothing fires.`;
      return `Would have fired ${EVENT_TEXT[d.event ?? 'enter']}, but ${why} (${d.from} → ${d.to}, nothing sent).`;
    }
    case 'point':
      if (d.note === 'band') {
        return d.boundary === undefined
          ? `A point in the hysteresis band${where}: between the radius and the leave margin, it changes nothing.`
          : `A point in the hysteresis band${where}: it changes nothing.`;
      }
      if (d.note === 'unusable_accuracy') {
        const acc = d.point?.horizontal_accuracy;
        return `A point too inaccurate to move this machine${acc != null ? ` (accuracy ${acc} m)` : ''}${where}.`;
      }
      return `A point older than the user's last applied point${where}: kept in history, it moved nothing.`;
    default:
      if (d.from === 'firedOnce') return `The trigger stopped being one-time: the spent pair was released (${d.from} → ${d.to}).`;
      if (d.note === 'dwell_too_short') return `Left before the dwell deadline${where}: the visit was too short to fire.`;
      if (d.event === 'leave') return `Left the place${where}.`;
      if (d.event === 'dwell') return `Dwelled until the deadline (${d.from} → ${d.to}).`;
      return `Entered the place${where} (${d.from} → ${d.to}).`;
  }
}

/** One entry as the API shows it, dated in `tz`; `received`: with the time the service received its point (not for a replay). */
export function entryView(d: TimelineDoc, tz: string, received = true) {
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
    reason: reasonOf(d),
    point: d.point
      ? { latitude: d.point.latitude, longitude: d.point.longitude, horizontal_accuracy: d.point.horizontal_accuracy, date: isoDate(d.point.date, tz), date_ts: unixSeconds(d.point.date) }
      : null,
    zone: d.zone,
    distance_m: d.distance_m,
    ...(d.boundary !== undefined ? { boundary: d.boundary } : {}),
    firing_id: d.firing_id,
    date: isoDate(d.at, tz),
    date_ts: unixSeconds(d.at),
    // When the service received the point behind it (a dwell deadline: when it applied the tick).
    ...(received && d.received_at > 0 ? { received_at: isoDate(d.received_at, tz), received_at_ts: unixSeconds(d.received_at) } : {}),
  };
}

export type EntryView = ReturnType<typeof entryView>;

export interface TimelineQuery {
  user_id: string;
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

/** GET /1/trigger/timeline: one user's entries, newest first; dated in the request's zone. */
export async function listTimeline(ctx: ServiceContext, appId: string, q: TimelineQuery, headerZone?: string) {
  refuseUnknown(q, TIMELINE_PARAMS);
  const user = await ctx.store.users.get(appId, q.user_id);
  if (!user) throw notFound('User');
  const tz = requestTimeZone(headerZone, user);
  if (q.trigger_id && !(await ctx.store.triggers.get(appId, q.trigger_id))) throw notFound('Trigger');
  if (q.place_id && !(await ctx.store.places.get(appId, q.place_id))) throw notFound('Place');
  const filter: TimelineFilter = {};
  if (q.trigger_id) filter.trigger_id = q.trigger_id;
  if (q.place_id) filter.place_id = q.place_id;
  if (q.after !== undefined) filter.after = parseDateInput(q.after, 'after', tz);
  if (q.before !== undefined) filter.before = parseDateInput(q.before, 'before', tz);
  const page = { offset: q.offset ?? 0, limit: q.count ?? (q.limit === undefined ? 100 : q.limit === 0 ? 1000 : q.limit) };
  const { entries, total } = await ctx.store.timeline.ofUser(appId, user._id, filter, page);
  return { user_id: user._id, entries: entries.map((r) => entryView(r, tz)), paging: pagingObject(page, total, entries.length) };
}

/** The most recent entries of each of one user's pairs of a trigger, by place (trigger/state). */
export async function pairTimelines(ctx: ServiceContext, appId: string, userId: string, triggerId: string, places: number, tz: string) {
  const rows = await ctx.store.timeline.ofUserTrigger(appId, userId, triggerId, Math.min(1000, STATE_TIMELINE * Math.max(1, places)));
  const byPlace = new Map<string, EntryView[]>();
  for (const r of rows) {
    let list = byPlace.get(r.place_id);
    if (!list) byPlace.set(r.place_id, (list = []));
    if (list.length < STATE_TIMELINE) list.push(entryView(r, tz));
  }
  return byPlace;
}
