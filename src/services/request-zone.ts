// The time zone of one request (reference §1, "Timezone"): dates without an offset are read in it
// and dates are shown in it. It is the `Timezone` header's zone, else the profile zone of the user
// the request acts on (user token, or application token with user_id), else UTC. The Android SDK
// and the old PHP website send the header on every request:
//   Timezone: 2011-03-26T15:36:00-07:00;;America/Los_Angeles
// It is read leniently and never fails a request:
// - a known zone name after `;;` (any case, as for profiles) is the zone;
// - no name (nothing after `;;`, or no `;;`): the date's own offset, as a fixed offset (`-07:00`;
//   `Z` is UTC); a value that is only a zone name is taken as that name;
// - an unknown name, a date without an offset, several headers, or anything else: the header is
//   ignored (the profile's zone, or UTC). An unknown name does not fall back on the date's offset:
//   a fixed offset is right at that date only, wrong across DST for every other date shown.
import type { IncomingHttpHeaders } from 'node:http';
import { canonicalTimeZone } from '../schemas/dates.js';

/** Longer values are not read: no zone name or date is near this long. */
const MAX_HEADER_CHARS = 200;
/** `…±hh:mm`, `…±hhmm` or `…Z` at the end of an ISO date-time. */
const DATE_WITH_OFFSET = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)? ?(?:(Z)|([+-])(\d\d):?(\d\d))$/i;

/** Zone names as sent → canonical name, or null when unknown: headers repeat, Intl is slow to ask. */
const names = new Map<string, string | null>();
const MAX_NAMES = 1000;

function zoneName(name: string): string | undefined {
  let known = names.get(name);
  if (known === undefined) {
    known = canonicalTimeZone(name) ?? null;
    // Bounded: each distinct spelling sent would otherwise stay in memory.
    if (names.size >= MAX_NAMES) names.clear();
    names.set(name, known);
  }
  return known ?? undefined;
}

/** The date's offset as a zone: `UTC`, or `±hh:mm` (hours up to 23, minutes up to 59). */
function offsetZone(date: string): string | undefined {
  const m = DATE_WITH_OFFSET.exec(date);
  if (!m) return undefined;
  if (m[1]) return 'UTC';
  const [hh, mm] = [m[3]!, m[4]!];
  if (+hh > 23 || +mm > 59) return undefined;
  return +hh === 0 && +mm === 0 ? 'UTC' : `${m[2]}${hh}:${mm}`;
}

/** The zone a `Timezone` header names, or undefined when there is none to use (see above). */
export function headerTimeZone(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || header.length > MAX_HEADER_CHARS) return undefined;
  const split = header.indexOf(';;');
  if (split < 0) {
    const value = header.trim();
    return value === '' ? undefined : /^\d/.test(value) ? offsetZone(value) : zoneName(value);
  }
  const name = header.slice(split + 2).trim();
  if (name !== '') return zoneName(name);
  return offsetZone(header.slice(0, split).trim());
}

/** The request's zone: the header's, else the profile's of the user it acts on, else UTC. */
export function requestTimeZone(headerZone: string | undefined, user?: { timezone?: string } | null): string {
  return headerZone ?? (user?.timezone || 'UTC');
}

type WithHeaders = { headers: IncomingHttpHeaders };

/** The zone a request's `Timezone` header names, or undefined (see headerTimeZone). */
export const headerZoneOf = (request: WithHeaders) => headerTimeZone(request.headers.timezone);

/** The request's zone: its header's, else `user`'s profile zone, else UTC (see requestTimeZone). */
export const requestZone = (request: WithHeaders, user?: { timezone?: string } | null) => requestTimeZone(headerZoneOf(request), user);
