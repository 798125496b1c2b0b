// POST /1/trigger/replay: what a track would fire, and why, against an application's triggers as
// they are now, with no side effect (the engine runs it in a replay thread: src/engine/replay-pool.ts).
// The track is location/update points, a GPX document, a GeoJSON line with times, or a user's
// stored history. Deterministic: the answer depends on the request and the documents only (the
// track's timestamps are the clock; ids are made from the inputs), so its pages fit together.
import { apiError, notFound } from '../errors.js';
import { isoDate, parseDateInput, unixSeconds } from '../schemas/dates.js';
import { parsePoint } from '../schemas/location-points.js';
import { MAX_REPLAY_PAGE, MAX_REPLAY_POINTS, REPLAY_PARAMS } from '../schemas/timeline.js';
import { geoJsonRows, tooManyPoints, trackFormat, type TrackRow } from '../schemas/track.js';
import type { UserDoc } from '../store/documents.js';
import type { ReplayOutput, ReplayPairState, ReplayRun, ReplayTrack, ServiceContext } from './context.js';
import { pagingObject } from './paging.js';
import { requestTimeZone } from './request-zone.js';
import { storedTrack, type TrackSource } from './replay-source.js';
import { applyWhatIf, type WhatIfInput } from './replay-whatif.js';
import { entryView, refuseUnknown } from './timeline.js';

export interface ReplayInput extends WhatIfInput {
  points?: unknown[];
  track?: string | Record<string, unknown>;
  format?: 'gpx' | 'geojson';
  source?: 'history' | 'timeline';
  after?: string | number;
  before?: string | number;
  user_id?: string;
  layer_ids?: string[];
  place_ids?: string[];
  trigger_ids?: string[];
  start_states?: Array<{ trigger_id: string; place_id: string; state: ReplayPairState; since?: string | number }>;
  offset?: number;
  limit?: number;
}

export async function replay(ctx: ServiceContext, appId: string, input: ReplayInput, headerZone?: string) {
  refuseUnknown(input, REPLAY_PARAMS);
  const sources = [input.points !== undefined, input.track !== undefined, input.source !== undefined].filter(Boolean).length;
  if (sources !== 1) throw apiError('missing_input', 'Give exactly one of points, track or source (history or timeline)');
  const user = input.user_id !== undefined ? await ctx.store.users.get(appId, input.user_id) : null;
  if (input.user_id !== undefined && !user) throw notFound('User');
  const scoped = (input.layer_ids?.length ?? 0) + (input.place_ids?.length ?? 0) + (input.trigger_ids?.length ?? 0) > 0;
  if (!user && !scoped) throw apiError('missing_input', 'Give user_id (that user\'s layers and triggers) or layer_ids, place_ids or trigger_ids');
  const tz = requestTimeZone(headerZone, user);

  const { track, source } = await replayTrack(ctx, appId, input, user, tz);
  const [triggers, places, layers, app] = await Promise.all([
    ctx.store.triggers.forApp(appId),
    ctx.store.places.forApp(appId),
    ctx.store.layers.forApp(appId),
    ctx.store.applications.get(appId),
  ]);
  checkIds({ triggers, places, layers }, input);
  const whatIf = input.overrides !== undefined || input.draft_triggers !== undefined
    ? applyWhatIf({ triggers, places, layers }, input, { appId, defaultLayerId: app?.default_layer_id ?? '', now: ctx.now(), timeZone: tz })
    : null;
  const page = { offset: input.offset ?? 0, limit: input.limit === undefined || input.limit === 0 ? MAX_REPLAY_PAGE : input.limit };
  const run: ReplayRun = {
    appId,
    userId: user?._id ?? 'replay',
    // Daily windows are read in the user's zone, as live; without a user, in the request's.
    timezone: user ? user.timezone || 'UTC' : (headerZone ?? 'UTC'),
    docs: whatIf?.docs ?? { triggers, places, layers },
    track,
    // Without a time, the pair has been in that state since the track began (the replay thread knows when).
    startStates: (input.start_states ?? []).map((s) => ({
      triggerId: s.trigger_id,
      placeId: s.place_id,
      state: s.state,
      ...(s.since !== undefined ? { since: parseDateInput(s.since, 'start_states.since', tz) } : {}),
    })),
    page,
  };
  if (user) {
    const subs = await ctx.store.subscriptions.forUser(appId, user._id);
    run.layerIds = [app?.default_layer_id ?? '', ...subs.map((s) => s.layer_id)];
  }
  // Drafts are always in a scope given by ids: they were sent to be tried.
  const drafts = whatIf?.applied.draft_triggers.map((d) => d.trigger_id) ?? [];
  if (scoped) run.select = { layerIds: input.layer_ids ?? [], placeIds: input.place_ids ?? [], triggerIds: [...(input.trigger_ids ?? []), ...drafts] };

  const out = await ctx.replayer.replay(run);
  // A replayed point was never received: its entries carry no received_at.
  const entries = out.entries.map((d) => entryView(d, tz, undefined, false));
  const paging = pagingObject(page, out.total, entries.length);
  return {
    entries,
    firings: entries
      .filter((e) => e.kind === 'fired')
      .map((e) => ({ trigger_id: e.trigger_id, place_id: e.place_id, event: e.event!, date: e.date, date_ts: e.date_ts, firing_id: e.firing_id! })),
    final_states: out.finalStates.map((s) => ({
      trigger_id: s.triggerId, place_id: s.placeId, state: s.state, since: isoDate(s.since, tz), since_ts: unixSeconds(s.since),
    })),
    points: out.points,
    pairs: out.pairs,
    summary: {
      entries: out.total,
      firings: out.fired,
      pairs: out.counts.map((c) => ({ trigger_id: c.triggerId, place_id: c.placeId, transition: c.transition, fired: c.fired, gated: c.gated, point: c.point })),
    },
    paging,
    truncated: page.offset > 0 || paging.next_offset !== undefined,
    closest: out.closest.map((c) => ({
      place_id: c.placeId,
      trigger_ids: c.triggerIds,
      shape: c.shape,
      radius: c.radius,
      distance_m: tenth(c.centreM),
      outside_m: tenth(c.outsideM),
      margin_m: tenth(c.marginM),
      point: { latitude: c.point.lat, longitude: c.point.lon, horizontal_accuracy: c.point.acc, date: isoDate(c.point.at, tz), date_ts: unixSeconds(c.point.at) },
      reason: closestText(c),
    })),
    track_source: source,
    ...(whatIf ? { what_if: whatIf.applied } : {}),
  };
}

const tenth = (n: number) => Math.round(n * 10) / 10;

/** Ids the request names must be the application's (another's are as missing: 404): looked up in its documents, loaded already. */
function checkIds(docs: ReplayRun['docs'], input: ReplayInput): void {
  const ids = (list: Array<{ _id: string }>) => new Set(list.map((d) => d._id));
  const [layers, places, triggers] = [ids(docs.layers), ids(docs.places), ids(docs.triggers)];
  const check = (wanted: string[] | undefined, known: Set<string>, what: string) => {
    for (const id of wanted ?? []) if (!known.has(id)) throw notFound(what);
  };
  check(input.layer_ids, layers, 'Layer');
  check(input.place_ids, places, 'Place');
  check(input.trigger_ids, triggers, 'Trigger');
  for (const s of input.start_states ?? []) {
    if (!triggers.has(s.trigger_id)) throw notFound('Trigger');
    if (!places.has(s.place_id)) throw notFound('Place');
  }
}

/**
 * The track: points and stored history read here, a GeoJSON object read here (it arrived parsed),
 * and a GPX or GeoJSON text handed to the replay thread to read, off the event loop.
 */
async function replayTrack(ctx: ServiceContext, appId: string, input: ReplayInput, user: UserDoc | null, tz: string): Promise<{ track: ReplayTrack; source: TrackSource }> {
  const given = (track: ReplayTrack) => ({ track, source: { kind: 'request' as const, note: null } });
  if (input.points !== undefined) return given({ rows: pointRows(input.points, tz) });
  if (input.track !== undefined) {
    const track = input.track;
    if (trackFormat(track, input.format) === 'gpx') {
      if (typeof track !== 'string') throw apiError('invalid_input', 'track: a GPX track is the document\'s text');
      return given({ gpx: track });
    }
    return given(typeof track === 'string' ? { geojson: track } : { rows: geoJsonRows(track, MAX_REPLAY_POINTS) });
  }
  if (!user) throw apiError('missing_input', `source=${input.source ?? 'history'} replays a user's stored points: give user_id`);
  const stored = await storedTrack(ctx, appId, user, input.source ?? 'history', input, tz);
  return { track: { rows: stored.rows }, source: stored.source };
}

/** location/update points, read as location/update reads them (any date in the past or future). */
function pointRows(items: unknown[], tz: string): TrackRow[] {
  if (items.length === 0) throw apiError('invalid_input', 'points must hold at least one point');
  if (items.length > MAX_REPLAY_POINTS) throw tooManyPoints(MAX_REPLAY_POINTS, items.length);
  const rows: TrackRow[] = [];
  const bad: string[] = [];
  items.forEach((item, i) => {
    const p = parsePoint(item, Infinity, tz);
    if (typeof p === 'string') bad.push(`point ${i}: ${p}`);
    else rows.push({ at: p.at, lat: p.latitude, lon: p.longitude, acc: p.accuracy });
  });
  if (bad.length > 0) throw apiError('invalid_input', `${bad.length} of ${items.length} points are invalid: ${bad.slice(0, 10).join('; ')}${bad.length > 10 ? '; …' : ''}`);
  return rows;
}

const m = (n: number) => (Math.abs(n) < 1 ? 'less than 1' : String(Math.round(Math.abs(n))));

/** The closest approach in a sentence (measured in src/engine/replay-closest.ts). */
export function closestText(c: Pick<ReplayOutput['closest'][number], 'shape' | 'radius' | 'outsideM' | 'centreM' | 'marginM'>): string {
  if (c.shape === 'circle') {
    const r = Math.round(c.radius);
    if (c.outsideM > 0) {
      const band = c.outsideM <= c.marginM ? `, inside the ${Math.round(c.marginM)} m leave margin` : '';
      return `Passed ${m(c.centreM)} m from the centre, ${m(c.outsideM)} m outside the ${r} m radius${band}.`;
    }
    return `Came ${m(c.centreM)} m from the centre, inside the ${r} m radius.`;
  }
  const edge = `the ${c.shape}'s edge`;
  if (c.outsideM > 0) return `Passed ${m(c.outsideM)} m outside ${edge}${c.outsideM <= c.marginM ? `, inside the ${Math.round(c.marginM)} m leave margin` : ''}.`;
  return `Came ${m(c.outsideM)} m inside ${edge}.`;
}
