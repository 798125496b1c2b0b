// Date and daily-time windows of places and triggers (reference §6.3): parsed once on the way in
// (Unix seconds or ISO-8601; HH:MM[:SS]), rendered on the way out as ISO dates with `_ts` twins.
import { apiError } from '../errors.js';
import type { Windowed } from '../store/documents.js';
import { isoDate, normaliseTime, parseDateInput, unixSeconds, windowOver } from '../schemas/dates.js';

/** What a request may say about a window: a value sets a bound, null or "" clears it. */
export interface WindowInput {
  date_from?: number | string | null;
  date_to?: number | string | null;
  time_from?: string | null;
  time_to?: string | null;
}

const FIELDS = ['date_from', 'date_to', 'time_from', 'time_to'] as const;

export interface WindowChange {
  set: Windowed;
  unset: Array<keyof Windowed>;
}

const cleared = (v: unknown) => v === null || v === '';

/**
 * Validates the window fields given, merged over `current` (for updates), and returns what to
 * write; a date without an offset is read in `timeZone` (the request's). Throws 400 invalid_input
 * naming the field for unparseable or inverted dates.
 */
export function windowChange(input: WindowInput, current: Windowed = {}, timeZone = 'UTC'): WindowChange {
  const change: WindowChange = { set: {}, unset: [] };
  for (const field of FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    if (cleared(value)) {
      change.unset.push(field);
    } else if (field === 'date_from' || field === 'date_to') {
      change.set[field] = parseDateInput(value, field, timeZone);
    } else {
      change.set[field] = normaliseTime(String(value));
    }
  }
  const merged = { ...current, ...change.set };
  for (const f of change.unset) delete merged[f];
  if (merged.date_from !== undefined && merged.date_to !== undefined && merged.date_from > merged.date_to) {
    throw apiError('invalid_input', 'date_from must not be after date_to');
  }
  return change;
}

/** `date_from`/`date_to` as ISO-8601 plus `_ts` Unix seconds, only for the bounds that are set. */
export function renderDates(w: Windowed, timeZone = 'UTC'): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  if (w.date_from !== undefined) Object.assign(out, { date_from: isoDate(w.date_from, timeZone), date_from_ts: unixSeconds(w.date_from) });
  if (w.date_to !== undefined) Object.assign(out, { date_to: isoDate(w.date_to, timeZone), date_to_ts: unixSeconds(w.date_to) });
  return out;
}

export { windowOver };
