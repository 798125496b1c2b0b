// A replay of what the service kept of a user's track (`source`, docs/api.md "Replay"): their
// location history when the application keeps it, else the points behind their decision timeline.
// An application that turned history off asked the service not to keep its users' tracks, so no
// other copy of them is kept for replay: the timeline's points (kept anyway, for "why did it
// fire?") and the user's last location are what there is, and the answer says so.
import { apiError } from '../errors.js';
import { parseDateInput } from '../schemas/dates.js';
import { MAX_REPLAY_POINTS } from '../schemas/timeline.js';
import type { TrackRow } from '../schemas/track.js';
import type { DateRange, UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';

export type TrackSourceKind = 'request' | 'history' | 'timeline';

/** Which points a replay ran on, and what that means for its answer. */
export interface TrackSource {
  kind: TrackSourceKind;
  /** The application keeps location history (a stored source only). */
  history_kept?: boolean;
  /** Only the newest points of the range fitted in a replay. */
  partial?: boolean;
  note: string | null;
}

/** Timeline entries read for one replay at most: a point is behind one entry per pair it moved. */
const MAX_TIMELINE_ENTRIES = 5 * MAX_REPLAY_POINTS;
const PAGE = 1000;

const HISTORY_NOTE = 'The user\'s stored location history: every point the service received in the range.';
const TIMELINE_NOTE = 'This application does not keep location history (store_history is off), so this replay ran on the points '
  + 'behind the user\'s decision timeline (each transition, firing, gated firing and noted point) and their last location. '
  + 'That is fewer points than the phone sent: the decisions taken are there, but points that changed nothing are not, so a '
  + 'what-if that moves a boundary or lengthens a dwell may decide differently than the full track would, and the closest '
  + 'approach is measured on these points only.';

export interface StoredTrack {
  rows: TrackRow[];
  source: TrackSource;
}

/** The user's kept points in the range, oldest first: their history, or without one their timeline's points. */
export async function storedTrack(
  ctx: ServiceContext, appId: string, user: UserDoc, wanted: 'history' | 'timeline', input: { after?: string | number; before?: string | number }, tz: string,
): Promise<StoredTrack> {
  const app = await ctx.store.applications.get(appId);
  const kept = Boolean(app?.store_history);
  const range: DateRange = {};
  if (input.after !== undefined) range.after = parseDateInput(input.after, 'after', tz);
  if (input.before !== undefined) range.before = parseDateInput(input.before, 'before', tz);
  if (wanted === 'history' && kept) {
    const docs = await ctx.store.locations.oldest(appId, user._id, range, MAX_REPLAY_POINTS + 1);
    if (docs.length > MAX_REPLAY_POINTS) {
      throw apiError('invalid_input', `The stored history in that range has more than ${MAX_REPLAY_POINTS} points: narrow it with after and before`);
    }
    return {
      rows: docs.map((d) => ({ at: d.date, lat: d.latitude, lon: d.longitude, acc: d.horizontal_accuracy ?? 0 })),
      source: { kind: 'history', history_kept: true, note: HISTORY_NOTE },
    };
  }
  const { rows, partial } = await timelinePoints(ctx, appId, user._id, range);
  if (rows.length === 0) {
    throw apiError('invalid_input', kept
      ? 'The user has no decision timeline points in that range to replay'
      : 'This application does not keep location history (store_history), and the user has no decision timeline points in that range to replay');
  }
  const note = kept
    ? 'Replayed from the points behind the user\'s decision timeline, as asked (source=timeline); their stored history has every point.'
    : TIMELINE_NOTE;
  return { rows, source: { kind: 'timeline', history_kept: kept, ...(partial ? { partial } : {}), note: partial ? `${note} Only the newest ${MAX_REPLAY_POINTS} points of the range fit in one replay: narrow it with after and before for older ones.` : note } };
}

const inRange = (at: number, r: DateRange) => (r.after === undefined || at >= r.after) && (r.before === undefined || at <= r.before);

/**
 * The distinct points behind the user's timeline entries in the range, and their last location,
 * oldest first: the newest MAX_REPLAY_POINTS of them. A point noted as stale moved nothing live
 * (it arrived after a newer one) and would move the replay's machines, so it is left out.
 */
async function timelinePoints(ctx: ServiceContext, appId: string, userId: string, range: DateRange): Promise<{ rows: TrackRow[]; partial: boolean }> {
  const byKey = new Map<string, TrackRow>();
  const add = (r: TrackRow) => {
    const key = `${r.at}:${r.lat}:${r.lon}`;
    if (!byKey.has(key)) byKey.set(key, r);
  };
  const last = await ctx.store.lastLocations.of(appId, userId);
  if (last && inRange(last.date, range)) add({ at: last.date, lat: last.latitude, lon: last.longitude, acc: last.horizontal_accuracy ?? 0 });
  const filter = { ...(range.after !== undefined ? { after: range.after } : {}), ...(range.before !== undefined ? { before: range.before } : {}) };
  let partial = false;
  for (let offset = 0; offset < MAX_TIMELINE_ENTRIES; offset += PAGE) {
    // Newest first: when the range holds more than a replay takes, the recent track is the one kept.
    const { entries, total } = await ctx.store.timeline.ofUser(appId, userId, filter, { offset, limit: PAGE });
    for (const e of entries) {
      if (e.point === null || e.note === 'stale_point') continue;
      add({ at: e.point.date, lat: e.point.latitude, lon: e.point.longitude, acc: e.point.horizontal_accuracy ?? 0 });
      if (byKey.size > MAX_REPLAY_POINTS) break;
    }
    if (byKey.size > MAX_REPLAY_POINTS) {
      partial = true;
      break;
    }
    if (entries.length < PAGE || offset + PAGE >= total) break;
    if (offset + PAGE >= MAX_TIMELINE_ENTRIES) partial = true;
  }
  // Read newest first: reversed, points of equal time keep the order they were stored in.
  const rows = [...byKey.values()].reverse().sort((a, b) => a.at - b.at);
  return { rows: rows.slice(-MAX_REPLAY_POINTS), partial };
}
