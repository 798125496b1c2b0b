// The trigger rules of machines/README.md, read independently of the engine: zones (in, out, band,
// unusable) and the gates that suppress a firing (date window, daily time window in the user's
// timezone, layer rate limit). A gate can also be "unknown" when the firing time sits so close to a
// boundary that a correct engine could go either way; the oracle then does not judge that pair.
import { haversineM } from '../geo.js';
import { shapeEdgeM, type PlaceShape } from '../shapes.js';
import { leaveMargin, type Window, type ZoneParams } from '../world.js';

export type Zone = 'in' | 'out' | 'band' | 'unusable';
export type Gate = 'open' | 'closed' | 'unknown';

export interface PlaceGeometry {
  lat: number;
  lng: number;
  radius: number;
  shape?: PlaceShape;
}

export function zoneOf(p: { lat: number; lng: number; acc: number }, place: PlaceGeometry, z: ZoneParams): Zone {
  const acc = p.acc > 0 ? p.acc : 0;
  // A shape (shapes.ts): its radius is under 100 m, so its bound and margin are the minimums.
  if (place.shape) {
    if (acc > z.maxAccuracyMinM) return 'unusable';
    const e = shapeEdgeM(place.shape, p.lat, p.lng);
    return e <= 0 ? 'in' : e > z.leaveMarginMinM ? 'out' : 'band';
  }
  if (acc > Math.max(z.maxAccuracyMinM, place.radius)) return 'unusable';
  const d = haversineM(p.lat, p.lng, place.lat, place.lng);
  if (d <= place.radius) return 'in';
  if (d > place.radius + leaveMargin(place.radius, z)) return 'out';
  return 'band';
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Seconds since local midnight (with the millisecond fraction) at epoch ms `t` in `timeZone`. */
export function localSecondsOfDay(t: number, timeZone: string): number {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', { timeZone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(timeZone, f);
  }
  let h = 0, m = 0, s = 0;
  for (const part of f.formatToParts(t)) {
    if (part.type === 'hour') h = Number(part.value);
    else if (part.type === 'minute') m = Number(part.value);
    else if (part.type === 'second') s = Number(part.value);
  }
  return h * 3600 + m * 60 + s + (((t % 1000) + 1000) % 1000) / 1000;
}

export function parseClock(hms: string): number {
  const [h, m, s] = hms.split(':').map(Number);
  return h * 3600 + m * 60 + (s || 0);
}

/** Seconds on either side of a daily boundary where inclusive and exclusive readings may differ. */
export const CLOCK_EDGE_S = 1;

function nearClock(a: number, b: number): boolean {
  const d = Math.abs(a - b) % 86_400;
  return Math.min(d, 86_400 - d) < CLOCK_EDGE_S;
}

/** The daily window: `time_from > time_to` wraps over midnight; 00:00:00–00:00:00 is all day. */
export function timeGate(t: number, timeZone: string, from: string | undefined, to: string | undefined): Gate {
  if (from === undefined && to === undefined) return 'open';
  const f = parseClock(from ?? '00:00:00');
  const e = parseClock(to ?? '00:00:00');
  if (f === 0 && e === 0) return 'open';
  // A window of zero width other than midnight is not described by the rules: do not judge it.
  if (f === e) return 'unknown';
  const s = localSecondsOfDay(t, timeZone);
  if (nearClock(s, f) || nearClock(s, e)) return 'unknown';
  const inside = f < e ? s >= f && s <= e : s >= f || s <= e;
  return inside ? 'open' : 'closed';
}

/** Inclusive absolute bounds. */
export function dateGate(t: number, from: number | undefined, to: number | undefined): Gate {
  if (from !== undefined && t < from) return 'closed';
  if (to !== undefined && t > to) return 'closed';
  return 'open';
}

export function windowGate(t: number, timeZone: string, w: Window | undefined): Gate {
  if (!w) return 'open';
  return both(dateGate(t, w.dateFrom, w.dateTo), timeGate(t, timeZone, w.timeFrom, w.timeTo));
}

/** Closed wins; otherwise unknown wins over open. */
export function both(a: Gate, b: Gate): Gate {
  if (a === 'closed' || b === 'closed') return 'closed';
  if (a === 'unknown' || b === 'unknown') return 'unknown';
  return 'open';
}

/** Rate limit: closed when the same trigger fired for the user less than `limitS` ago. */
export function rateGate(t: number, limitS: number, lastFired: number | undefined): Gate {
  if (limitS <= 0 || lastFired === undefined) return 'open';
  return t - lastFired < limitS * 1000 ? 'closed' : 'open';
}
