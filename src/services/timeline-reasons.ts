// A timeline entry in words and numbers: the sentence of `reason`, and `detail`, the numbers behind
// a gate (the window, the zone and the user's local time then; the rate limit, the firing it counted
// from and when a firing was allowed again), a visit too short for its dwell, a point in the band.
// The numbers are the engine's when it decided (workers/timeline-detail.ts); only the earlier
// firing's place is looked up when read (timeline-names.ts).
import { isoDate, unixSeconds } from '../schemas/dates.js';
import type { TimelineDetailDoc, TimelineDoc } from '../store/documents.js';

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

/** The earlier firing a rate limit counted from, found when read (null: no longer in the timeline). */
export interface EarlierFiring {
  place_id: string;
  place_name: string | null;
  firing_id: string | null;
}

/** `HH:MM`, or `HH:MM:SS` when the seconds matter. */
const clock = (t: string) => (t.endsWith(':00') ? t.slice(0, 5) : t);
const stamp = (at: number, tz: string) => ({ date: isoDate(at, tz), date_ts: unixSeconds(at) });
const stampOrNull = (at: number | null, tz: string) => (at === null ? null : stamp(at, tz));

/** The numbers of a gate, in words (after "but"). */
function gateNumbers(d: TimelineDetailDoc, tz: string, earlier: EarlierFiring | null | undefined): string | null {
  switch (d.kind) {
    case 'time_window':
      return `it is outside the daily time window: window ${d.windows.map((w) => `${clock(w.from)}–${clock(w.to)}`).join(' and ')} ${d.zone}; it was ${d.local_time.slice(0, 5)} there`;
    case 'date_window': {
      const bounds = [d.date_from !== null ? `from ${isoDate(d.date_from, tz)}` : '', d.date_to !== null ? `until ${isoDate(d.date_to, tz)}` : ''].filter(Boolean).join(' ');
      return bounds === '' ? null : `valid ${bounds}`;
    }
    case 'rate_limit': {
      const where = earlier ? ` at ${earlier.place_name !== null ? `"${earlier.place_name}"` : `place ${earlier.place_id}`}` : '';
      return `the trigger fired for this user at ${isoDate(d.last_fired_at, tz)}${where}, and the layer's trigger_rate_limit is ${d.limit_s} s: a firing is allowed again from ${isoDate(d.allowed_at, tz)}`;
    }
    default:
      return null;
  }
}

/** The entry in a sentence; with its `detail`, the numbers too. */
export function reasonOf(
  d: Pick<TimelineDoc, 'kind' | 'event' | 'from' | 'to' | 'gate' | 'note' | 'distance_m' | 'boundary' | 'point' | 'detail'>,
  tz = 'UTC',
  earlier?: EarlierFiring | null,
): string {
  const where = whereText(d.distance_m, d.boundary);
  const detail = d.detail;
  switch (d.kind) {
    case 'fired':
      return d.event === 'dwell'
        ? `Fired after the dwell: the user stayed inside until the deadline (${d.from} → ${d.to}).`
        : `Fired ${EVENT_TEXT[d.event ?? 'enter']}${where} (${d.from} → ${d.to}).`;
    case 'gated': {
      const why = GATE_TEXT[d.gate ?? 'rate_limit'];
      if (d.gate === 'one_time_spent') return `The user ${d.event === 'leave' ? 'left' : 'entered'} again${where}, but ${why}: nothing fires.`;
      const numbers = detail === undefined ? null : gateNumbers(detail, tz, earlier);
      const said = numbers === null ? why : detail?.kind === 'date_window' ? `${why}: ${numbers}` : numbers;
      return `Would have fired ${EVENT_TEXT[d.event ?? 'enter']}, but ${said} (${d.from} → ${d.to}, nothing sent).`;
    }
    case 'point':
      if (d.note === 'band') {
        if (detail?.kind === 'band') {
          return `A point in the hysteresis band${where}: between the ${detail.radius_m} m radius and ${detail.leave_beyond_m} m, it changes nothing; a leave needs a point more than ${detail.leave_beyond_m} m from the centre.`;
        }
        return d.boundary === undefined
          ? `A point in the hysteresis band${where}: between the radius and the leave margin, it changes nothing.`
          : `A point in the hysteresis band${where}: it changes nothing; a leave needs a point more than ${Math.round(d.boundary.margin_m)} m outside the edge.`;
      }
      if (d.note === 'unusable_accuracy') {
        const acc = d.point?.horizontal_accuracy;
        return `A point too inaccurate to move this machine${acc != null ? ` (accuracy ${acc} m)` : ''}${where}.`;
      }
      return `A point older than the user's last applied point${where}: kept in history, it moved nothing.`;
    default:
      if (d.from === 'firedOnce') return `The trigger stopped being one-time: the spent pair was released (${d.from} → ${d.to}).`;
      if (d.note === 'dwell_too_short') {
        return detail?.kind === 'dwell'
          ? `Left before the dwell deadline${where}: stayed ${detail.stayed_s} s of ${detail.dwell_s} s, the visit was too short to fire.`
          : `Left before the dwell deadline${where}: the visit was too short to fire.`;
      }
      if (d.event === 'leave') return `Left the place${where}.`;
      if (d.event === 'dwell') return `Dwelled until the deadline (${d.from} → ${d.to}).`;
      return `Entered the place${where} (${d.from} → ${d.to}).`;
  }
}

/** `detail` as the API shows it: times dated in `tz`, the earlier firing of a rate limit with its place. */
export function detailView(d: TimelineDetailDoc, tz: string, earlier?: EarlierFiring | null) {
  switch (d.kind) {
    case 'time_window':
      return { kind: d.kind, windows: d.windows, zone: d.zone, local_time: d.local_time };
    case 'date_window':
      return { kind: d.kind, date_from: stampOrNull(d.date_from, tz), date_to: stampOrNull(d.date_to, tz) };
    case 'rate_limit':
      return {
        kind: d.kind,
        limit_s: d.limit_s,
        last_fired: { ...stamp(d.last_fired_at, tz), place_id: earlier?.place_id ?? null, place_name: earlier?.place_name ?? null, firing_id: earlier?.firing_id ?? null },
        allowed_again: stamp(d.allowed_at, tz),
      };
    case 'dwell':
      return { kind: d.kind, stayed_s: d.stayed_s, dwell_s: d.dwell_s, entered: stamp(d.entered_at, tz), deadline: stamp(d.deadline, tz) };
    case 'band':
      return { kind: d.kind, radius_m: d.radius_m, margin_m: d.margin_m, leave_beyond_m: d.leave_beyond_m };
  }
}
