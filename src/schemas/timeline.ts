// The decision timeline (trigger/timeline, trigger/state) and the replay (trigger/replay): request
// schemas, and the answers as the OpenAPI document shows them.
import { Type } from '@sinclair/typebox';
import { DateInput, Flag, Id, Latitude, Longitude, Nullable as NullableOf, Offset, Radius, RangeDate, ShortText, TokenFields } from './common.js';
import { StringEnum, WindowFields } from './geo-fields.js';
import { GeometryField, WidthField } from './places.js';
import { doc } from './response-objects.js';

const closed = { additionalProperties: false } as const;
const Iso = Type.String({ description: 'ISO-8601 with the offset of the request\'s zone' });
const UnixSeconds = Type.Integer({ description: 'Unix seconds' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
// Typed as the values themselves: a union built from an array types as any literal's.
const OneOf = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>(Type.Union(values.map((v) => Type.Literal(v)), description ? { description } : {}));
const NullableOneOf = (values: string[], description: string) => Type.Union([...values.map((v) => Type.Literal(v)), Type.Null()], { description });

/** Most points a replay takes (a track of ten thousand points is hours of a phone's fixes). */
export const MAX_REPLAY_POINTS = 10_000;
/** Most (trigger, place) pairs a replay's scope may hold: what bounds its summary and final states. */
export const MAX_REPLAY_PAIRS = 5_000;
/**
 * The work a replay may do: its points times the pairs of its scope (each point is evaluated
 * against every pair), e.g. 10,000 points against 50 pairs. Refused beyond, before any of it runs.
 */
export const MAX_REPLAY_STEPS = 500_000;
/** Timeline entries in one replay answer at most; `offset` pages through the rest. */
export const MAX_REPLAY_PAGE = 1000;
/** The largest offset a replay takes (no replay within MAX_REPLAY_STEPS records that many entries). */
const MAX_REPLAY_OFFSET = 10_000_000;
/** The largest body trigger/replay reads (a GPX of MAX_REPLAY_POINTS points with elevation and time fits). */
export const REPLAY_BODY_LIMIT = 8 * 1024 * 1024;

export const STATES = ['outside', 'inside', 'dwelling', 'firedOnce'];
export const GATES = ['date_window', 'time_window', 'rate_limit', 'one_time_spent', 'trigger_inactive'];
export const NOTES = ['band', 'unusable_accuracy', 'stale_point', 'dwell_too_short'];

/** A polygon's or corridor's own measure of a point (docs/api.md "Shapes"). */
export const Boundary = Type.Object({
  shape: OneOf(['polygon', 'corridor'], 'the place\'s shape'),
  outside_m: Type.Number({ description: 'metres outside the boundary; negative inside' }),
  margin_m: Type.Number({ description: 'the leave margin: a point leaves once it is farther than this outside' }),
}, { ...closed, description: 'polygon and corridor places only: where the point is against the boundary' });

const Stamp = Type.Object({ date: Iso, date_ts: UnixSeconds }, closed);
/** The numbers behind an entry, as the engine knew them when it decided (docs/api.md "Decision timeline"). */
export const TimelineDetail = Type.Union([
  Type.Object({
    kind: Type.Literal('time_window'),
    windows: Type.Array(Type.Object({ from: Type.String({ description: 'HH:MM:SS' }), to: Type.String({ description: 'HH:MM:SS' }) }, closed), { description: 'the daily windows that were closed then (trigger\'s and place\'s)' }),
    zone: Type.String({ description: 'the user\'s time zone the windows were read in' }),
    local_time: Type.String({ description: 'the user\'s local time then, HH:MM:SS' }),
  }, closed),
  Type.Object({ kind: Type.Literal('date_window'), date_from: Type.Union([Stamp, Type.Null()]), date_to: Type.Union([Stamp, Type.Null()]) }, closed),
  Type.Object({
    kind: Type.Literal('rate_limit'),
    limit_s: Type.Integer({ description: 'the layer\'s trigger_rate_limit then' }),
    last_fired: Type.Object({
      date: Iso, date_ts: UnixSeconds,
      place_id: Nullable(Type.String()), place_name: Nullable(Type.String()), firing_id: Nullable(Type.String()),
    }, { ...closed, description: 'the earlier firing the limit counted from (its place null once it left the timeline)' }),
    allowed_again: Stamp,
  }, closed),
  Type.Object({
    kind: Type.Literal('dwell'),
    stayed_s: Type.Integer({ description: 'seconds from entering to leaving' }),
    dwell_s: Type.Integer({ description: 'the trigger\'s trigger_after' }),
    entered: Stamp, deadline: Stamp,
  }, closed),
  Type.Object({
    kind: Type.Literal('band'),
    radius_m: Type.Number(), margin_m: Type.Number(),
    leave_beyond_m: Type.Number({ description: 'a leave needs a point farther than this from the centre' }),
  }, closed),
], { description: 'the numbers behind a gate, a visit too short for its dwell, or a point in a circle\'s band' });

export const TimelineEntry = Type.Object({
  id: Type.String({ description: 'stable; sorts by time within a user' }),
  user_id: Type.String(), trigger_id: Type.String(), place_id: Type.String(), layer_id: Nullable(Type.String()),
  kind: OneOf(['transition', 'fired', 'gated', 'point'], 'a state change, a firing, a firing a gate stopped, or a point that changed nothing'),
  event: NullableOneOf(['enter', 'leave', 'dwell'], 'the trigger condition involved'),
  from: NullableOneOf(STATES, 'state before'),
  to: NullableOneOf(STATES, 'state after'),
  gate: NullableOneOf(GATES, 'what stopped the firing (kind gated)'),
  note: NullableOneOf(NOTES, 'why a point that changed nothing (or a leave) is shown'),
  reason: Type.String({ description: 'the entry in a sentence' }),
  point: Type.Union([
    Type.Object({ latitude: Type.Number(), longitude: Type.Number(), horizontal_accuracy: Type.Union([Type.Number(), Type.Null()]), date: Iso, date_ts: UnixSeconds }, closed),
    Type.Null(),
  ], { description: 'the point behind it; null for a clock tick (a dwell deadline)' }),
  zone: NullableOneOf(['in', 'out', 'band', 'unusable'], 'where the point is for this place (machines/README.md zones)'),
  distance_m: Type.Union([Type.Number(), Type.Null()], { description: 'metres from the place\'s centre' }),
  boundary: Type.Optional(Boundary),
  firing_id: Type.Union([Type.String(), Type.Null()], { description: 'the firing\'s event id (trigger/history, callbacks)' }),
  date: Iso,
  date_ts: UnixSeconds,
  detail: Type.Optional(TimelineDetail),
  trigger_key: Type.Optional(Nullable(Type.String({ description: 'the trigger\'s key (null: it has none, or it was deleted)' }))),
  trigger_deleted: Type.Optional(Type.Literal(true, { description: 'the trigger was deleted: its decisions stay readable while the timeline keeps them' })),
  place_name: Type.Optional(Nullable(Type.String({ description: 'the place\'s name now (null: deleted)' }))),
  layer_name: Type.Optional(Nullable(Type.String({ description: 'the layer\'s name now (null: deleted)' }))),
  received_at: Type.Optional(Type.String({ description: 'when the service received the point behind it (a dwell deadline: when it applied it)' })),
  received_at_ts: Type.Optional(UnixSeconds),
}, { ...closed, description: 'One decision of the engine for a (user, trigger, place); the names are absent from a replay\'s entries' });

export const TimelineQuery = Type.Object({
  ...TokenFields,
  user_id: Type.Optional(Id),
  trigger_id: Type.Optional(Id),
  place_id: Type.Optional(Id),
  after: Type.Optional(RangeDate),
  before: Type.Optional(RangeDate),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  offset: Type.Optional(Offset),
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
});
export const TIMELINE_PARAMS = ['access_token', 'oauth_token', 'user_id', 'trigger_id', 'place_id', 'after', 'before', 'count', 'offset', 'limit'];

export const TimelineList = Type.Object({
  user_id: Type.Optional(Type.String({ description: 'with user_id: that user\'s entries' })),
  trigger_id: Type.Optional(Type.String({ description: 'without user_id: the trigger\'s decisions across users' })),
  after: Type.Optional(Iso),
  before: Type.Optional(Iso),
  entries: Type.Array(TimelineEntry),
  paging: doc('Paging'),
}, closed);

const PointInput = Type.Object({}, { additionalProperties: true, description: 'a location/update point: {date, location: {position: {latitude, longitude, horizontal_accuracy}}}' });
const StartState = Type.Object({
  trigger_id: Id, place_id: Id,
  state: OneOf(['inside', 'dwelling', 'firedOnce']),
  since: Type.Optional(DateInput),
}, closed);

/** Most overrides of each kind, and most draft triggers, in one replay. */
export const MAX_WHAT_IF = 100;
const TriggerOn = StringEnum(['enter', 'leave', 'exit']);
const Dwell = NullableOf(Type.Integer({ minimum: 0, maximum: 86_400 * 365 }));
const Shape = {
  latitude: Type.Optional(Latitude), longitude: Type.Optional(Longitude), radius: Type.Optional(Radius),
  geometry: Type.Optional(GeometryField), width: Type.Optional(WidthField),
};
const Overrides = Type.Object({
  places: Type.Optional(Type.Array(Type.Object({ place_id: Id, ...Shape, ...WindowFields }, closed), {
    maxItems: MAX_WHAT_IF, description: 'a place as if changed: its circle or geometry and its windows, with place/update\'s rules',
  })),
  triggers: Type.Optional(Type.Array(Type.Object({
    trigger_id: Id, trigger_on: Type.Optional(TriggerOn), trigger_after: Type.Optional(Dwell), one_time: Type.Optional(Flag), ...WindowFields,
  }, closed), { maxItems: MAX_WHAT_IF, description: 'a trigger as if changed: its event, dwell, one-time and windows' })),
  layers: Type.Optional(Type.Array(Type.Object({ layer_id: Id, trigger_rate_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 * 365 })) }, closed), {
    maxItems: MAX_WHAT_IF, description: 'a layer as if changed: its trigger_rate_limit',
  })),
}, { ...closed, description: 'what-if: the stored places, triggers and layers as if changed, for this replay only (nothing is written)' });
const DraftTrigger = Type.Object({
  place_id: Type.Optional(Id), layer_id: Type.Optional(Id), place_layer_id: Type.Optional(Id), place_name: Type.Optional(ShortText(200)),
  ...Shape, trigger_on: Type.Optional(TriggerOn), trigger_after: Type.Optional(Dwell), one_time: Type.Optional(Flag), ...WindowFields,
}, { ...closed, description: 'a trigger that does not exist: on place_id, on layer_id, or on a place drawn here (latitude, longitude and radius, or a geometry)' });

export const ReplayBody = Type.Object({
  ...TokenFields,
  points: Type.Optional(Type.Array(PointInput, { description: `location/update points, at most ${MAX_REPLAY_POINTS}` })),
  track: Type.Optional(Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })], {
    description: 'a GPX document (text), or a GeoJSON LineString, Feature or FeatureCollection with times (properties.coordinateProperties.times or coordTimes)',
  })),
  format: Type.Optional(OneOf(['gpx', 'geojson'])),
  source: Type.Optional(OneOf(['history', 'timeline'], 'the user\'s kept points: history, their stored location history (the points behind their decision timeline when the application keeps none); timeline, those points')),
  after: Type.Optional(DateInput),
  before: Type.Optional(DateInput),
  user_id: Type.Optional(Id),
  layer_ids: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
  place_ids: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
  trigger_ids: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
  start_states: Type.Optional(Type.Array(StartState, { maxItems: MAX_REPLAY_PAIRS })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_REPLAY_OFFSET, description: 'the first timeline entry to answer (paging.next_offset of the previous answer)' })),
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_REPLAY_PAGE, description: `timeline entries to answer, at most ${MAX_REPLAY_PAGE} (the default; 0 means it too)` })),
  overrides: Type.Optional(Overrides),
  draft_triggers: Type.Optional(Type.Array(DraftTrigger, { maxItems: MAX_WHAT_IF, description: 'what-if: triggers to try that do not exist; ids draft-trigger-1, … (their drawn places draft-place-1, …)' })),
});
export const REPLAY_PARAMS = [
  'access_token', 'oauth_token', 'points', 'track', 'format', 'source', 'after', 'before', 'user_id', 'layer_ids', 'place_ids', 'trigger_ids', 'start_states',
  'offset', 'limit', 'overrides', 'draft_triggers',
];

const Firing = Type.Object({
  trigger_id: Type.String(), place_id: Type.String(), event: OneOf(['enter', 'leave', 'dwell']),
  date: Iso, date_ts: UnixSeconds, firing_id: Type.String(),
}, closed);
const FinalState = Type.Object({ trigger_id: Type.String(), place_id: Type.String(), state: OneOf(['inside', 'dwelling', 'firedOnce']), since: Iso, since_ts: UnixSeconds }, closed);

const PairCounts = Type.Object({
  trigger_id: Type.String(), place_id: Type.String(),
  transition: Type.Integer(), fired: Type.Integer(), gated: Type.Integer(), point: Type.Integer(),
}, { ...closed, description: 'a pair\'s timeline entries over the whole replay, by kind' });

const Closest = Type.Object({
  place_id: Type.String(),
  trigger_ids: Type.Array(Type.String(), { description: 'the scope\'s triggers on the place' }),
  shape: OneOf(['circle', 'polygon', 'corridor']),
  radius: Type.Number({ description: 'the circle\'s radius (a shape\'s: the largest circle inside it)' }),
  distance_m: Type.Number({ description: 'metres from the centre at the closest point' }),
  outside_m: Type.Number({ description: 'metres outside the boundary at the closest point; negative inside' }),
  margin_m: Type.Number({ description: 'the place\'s leave margin' }),
  point: Type.Object({ latitude: Type.Number(), longitude: Type.Number(), horizontal_accuracy: Type.Number(), date: Iso, date_ts: UnixSeconds }, closed),
  reason: Type.String({ description: 'in a sentence: "Passed 150 m from the centre, 50 m outside the 100 m radius."' }),
}, closed);

export const ReplayResult = Type.Object({
  entries: Type.Array(TimelineEntry, { description: `oldest first; this page of the timeline (at most ${MAX_REPLAY_PAGE})` }),
  firings: Type.Array(Firing, { description: 'the firings among this page\'s entries' }),
  final_states: Type.Array(FinalState, { description: 'the pairs not outside at the end' }),
  points: Type.Integer({ description: 'points replayed' }),
  pairs: Type.Integer({ description: '(trigger, place) pairs in the replay\'s scope' }),
  summary: Type.Object({
    entries: Type.Integer({ description: 'timeline entries of the whole replay' }),
    firings: Type.Integer({ description: 'firings of the whole replay' }),
    pairs: Type.Array(PairCounts, { description: 'every pair with an entry, by trigger_id then place_id' }),
  }, closed),
  paging: doc('Paging'),
  truncated: Type.Boolean({ description: 'true when this answer holds only part of the timeline: send the same request with offset = paging.next_offset for the next part' }),
  closest: Type.Array(Closest, { description: 'per place of the scope (by place_id), the closest the track came to it: why a replay fired nothing' }),
  track_source: Type.Object({
    kind: OneOf(['request', 'history', 'timeline'], 'the points replayed: the request\'s, the stored history, or the points behind the user\'s decision timeline'),
    history_kept: Type.Optional(Type.Boolean({ description: 'the application keeps location history (a stored source only)' })),
    partial: Type.Optional(Type.Boolean({ description: 'only the newest points of the range fitted in one replay' })),
    note: Nullable(Type.String({ description: 'in words, what the source means for the answer' })),
  }, { ...closed, description: 'which points the replay ran on, and what that means' }),
  what_if: Type.Optional(Type.Object({
    places: Type.Array(Type.String()), triggers: Type.Array(Type.String()), layers: Type.Array(Type.String()),
    draft_triggers: Type.Array(Type.Object({ trigger_id: Type.String(), place_id: Nullable(Type.String()), layer_id: Type.String() }, closed)),
  }, { ...closed, description: 'the overrides applied and the draft triggers tried (requests with overrides or draft_triggers)' })),
}, closed);
