// The numbers behind a timeline entry (protocol.ts TimelineDetail), taken when the shard decides:
// the window and zone that gated a firing and the user's local time then, the rate limit and the
// firing it counted from, how long a visit lasted against its dwell, the distance a leave needs.
// Kept with the entry, so that a later change of the trigger, the place or the user's zone does
// not rewrite why something happened. Only called for the entries that need them (gated ones, a
// leave before the dwell deadline, a point in the band): never per point.
import type { PairRecord, TimelineFacts } from '../machines/index.js';
import { fenceMarginM } from '../src/geo/fence-zone.js';
import type { Hysteresis } from '../src/geo/hysteresis.js';
import { inDailyWindow, secondsOfDay } from '../src/geo/time-window.js';
import type { Geofence, TimelineDetail } from './protocol.js';
import type { UserSlot } from './user-slot.js';

const two = (n: number) => String(n).padStart(2, '0');
/** Seconds of a day as `HH:MM:SS`. */
export const clockText = (sec: number) => `${two(Math.floor(sec / 3600))}:${two(Math.floor(sec / 60) % 60)}:${two(sec % 60)}`;

/** The numbers of an entry the machine made (a gate, or a leave before the dwell deadline), or undefined. */
export function stepDetail(f: Geofence, u: UserSlot, before: PairRecord | undefined, facts: TimelineFacts): TimelineDetail | undefined {
  switch (facts.gate) {
    case 'time_window': {
      const sec = secondsOfDay(facts.at, u.tz);
      const daily = f.window?.daily ?? [];
      // The windows that were closed then (a trigger's and a place's may both apply).
      const closed = daily.filter((w) => !inDailyWindow(sec, w));
      return { kind: 'time_window', windows: (closed.length > 0 ? closed : daily).map((w) => ({ from: clockText(w.from), to: clockText(w.to) })), zone: u.tz, local_time: clockText(sec) };
    }
    case 'trigger_inactive':
      return { kind: 'date_window', date_from: f.triggerFrom ?? null, date_to: f.triggerTo ?? null };
    case 'date_window':
      return { kind: 'date_window', date_from: f.window?.dateFrom ?? null, date_to: f.window?.dateTo ?? null };
    case 'rate_limit': {
      const last = u.lastFired?.get(f.triggerId);
      if (last === undefined) return undefined;
      return { kind: 'rate_limit', limit_s: f.rateLimitS, last_fired_at: last, allowed_at: last + f.rateLimitS * 1000 };
    }
    default:
      break;
  }
  if (facts.note === 'dwell_too_short' && before !== undefined && before.deadline !== undefined) {
    return { kind: 'dwell', stayed_s: Math.floor((facts.at - before.enteredAt) / 1000), dwell_s: f.triggerAfterS, entered_at: before.enteredAt, deadline: before.deadline };
  }
  return undefined;
}

/** A circle's band: a leave needs the point farther from the centre than the radius and the margin (a shape's is its `boundary`). */
export function bandDetail(f: Geofence, h: Hysteresis): TimelineDetail | undefined {
  if (f.shape !== undefined) return undefined;
  const margin = Math.round(fenceMarginM(f, h) * 10) / 10;
  return { kind: 'band', radius_m: f.radius, margin_m: margin, leave_beyond_m: Math.round((f.radius + margin) * 10) / 10 };
}
