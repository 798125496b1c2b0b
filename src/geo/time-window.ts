// Date and daily time windows that gate a firing (machines/README.md "gated"). Daily windows are
// read in the user's IANA timezone through Intl, so DST is handled by the platform's tz database.
// Only evaluated when something would fire, never per point.

export type WindowGate = 'date_window' | 'time_window';

/** Seconds since local midnight, both ends inclusive; `from > to` wraps over midnight. */
export interface DailyWindow {
  from: number;
  to: number;
}

/** Intersection of every window that applies to one geofence (trigger's and place's). */
export interface WindowSpec {
  dateFrom?: number;
  dateTo?: number;
  daily?: DailyWindow[];
}

/** The stored shape (TriggerDoc / PlaceDoc `Windowed`), restated here: geo imports nothing. */
export interface WindowFields {
  date_from?: number | null;
  date_to?: number | null;
  time_from?: string | null;
  time_to?: string | null;
}

const DAY_S = 86_400;

/** `HH:MM` or `HH:MM:SS` → seconds of day. Throws RangeError on anything else. */
export function parseTimeOfDay(s: string): number {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(s.trim());
  if (!m) throw new RangeError(`invalid time of day: ${JSON.stringify(s)}`);
  const h = Number(m[1]);
  const min = Number(m[2]);
  const sec = m[3] === undefined ? 0 : Number(m[3]);
  if (h > 24 || min > 59 || sec > 59 || (h === 24 && (min > 0 || sec > 0))) {
    throw new RangeError(`invalid time of day: ${JSON.stringify(s)}`);
  }
  return (h * 3600 + min * 60 + sec) % DAY_S;
}

/**
 * Daily window of a document, or null when it has none. A lone `time_from` runs to the end of
 * the day, a lone `time_to` from midnight; equal bounds (`00:00:00`–`00:00:00`) mean all day.
 */
export function dailyWindowOf(w: WindowFields): DailyWindow | null {
  const hasFrom = typeof w.time_from === 'string' && w.time_from !== '';
  const hasTo = typeof w.time_to === 'string' && w.time_to !== '';
  if (!hasFrom && !hasTo) return null;
  const from = hasFrom ? parseTimeOfDay(w.time_from as string) : 0;
  const to = hasTo ? parseTimeOfDay(w.time_to as string) : DAY_S - 1;
  if (from === to) return null;
  return { from, to };
}

/** Merge the windows of several documents (all must pass): date bounds intersect, dailies stack. */
export function mergeWindows(...docs: WindowFields[]): WindowSpec | null {
  let dateFrom: number | undefined;
  let dateTo: number | undefined;
  const daily: DailyWindow[] = [];
  for (const d of docs) {
    if (typeof d.date_from === 'number') dateFrom = dateFrom === undefined ? d.date_from : Math.max(dateFrom, d.date_from);
    if (typeof d.date_to === 'number') dateTo = dateTo === undefined ? d.date_to : Math.min(dateTo, d.date_to);
    const w = dailyWindowOf(d);
    if (w) daily.push(w);
  }
  if (dateFrom === undefined && dateTo === undefined && daily.length === 0) return null;
  const spec: WindowSpec = {};
  if (dateFrom !== undefined) spec.dateFrom = dateFrom;
  if (dateTo !== undefined) spec.dateTo = dateTo;
  if (daily.length > 0) spec.daily = daily;
  return spec;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
    } catch {
      // An unknown zone must not crash the engine: read it as UTC (the profile default).
      f = timeZone === 'UTC' ? undefined : formatterFor('UTC');
      if (f === undefined) throw new RangeError('Intl has no UTC time zone');
    }
    formatters.set(timeZone, f);
  }
  return f;
}

/** Seconds since local midnight of instant `at` (epoch ms) in `timeZone`. */
export function secondsOfDay(at: number, timeZone: string): number {
  let h = 0;
  let m = 0;
  let s = 0;
  for (const p of formatterFor(timeZone).formatToParts(at)) {
    if (p.type === 'hour') h = Number(p.value);
    else if (p.type === 'minute') m = Number(p.value);
    else if (p.type === 'second') s = Number(p.value);
  }
  return (h % 24) * 3600 + m * 60 + s;
}

export function inDailyWindow(secOfDay: number, w: DailyWindow): boolean {
  return w.from <= w.to ? secOfDay >= w.from && secOfDay <= w.to : secOfDay >= w.from || secOfDay <= w.to;
}

/** Why a firing at `at` is outside the windows, or null when it may fire. */
export function windowGate(spec: WindowSpec | null | undefined, at: number, timeZone: string): WindowGate | null {
  if (!spec) return null;
  if (spec.dateFrom !== undefined && at < spec.dateFrom) return 'date_window';
  if (spec.dateTo !== undefined && at > spec.dateTo) return 'date_window';
  if (spec.daily && spec.daily.length > 0) {
    const sec = secondsOfDay(at, timeZone);
    for (const w of spec.daily) if (!inDailyWindow(sec, w)) return 'time_window';
  }
  return null;
}
