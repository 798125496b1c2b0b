// The service's API as the page uses it: the application token from the session, sent as
// `Authorization: OAuth <token>` (never in a URL), JSON answers, errors in the API's shape.

const TOKEN_KEY = 'inspector.token';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    description: string,
  ) {
    super(description);
  }

  /** The service has no such method (the router's own 404, not "object not found"). */
  get missingMethod(): boolean {
    return this.status === 404 && this.message.startsWith('No method ');
  }
}

type Query = Record<string, string | number | undefined>;

function url(path: string, query?: Query): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return `/1/${path}${s ? `?${s}` : ''}`;
}

export function authHeaders(token = session.token()): Record<string, string> {
  return token ? { authorization: `OAuth ${token}` } : {};
}

async function call<T>(method: 'GET' | 'POST', path: string, query?: Query, body?: unknown, token?: string): Promise<T> {
  const headers = authHeaders(token);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url(path, query), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  if (!res.ok) {
    const e = (parsed ?? {}) as { error?: string; error_description?: string };
    throw new ApiError(res.status, e.error ?? `http_${res.status}`, e.error_description ?? (text || res.statusText));
  }
  return parsed as T;
}

export const api = {
  get: <T>(path: string, query?: Query, token?: string) => call<T>('GET', path, query, undefined, token),
  post: <T>(path: string, body: unknown, query?: Query) => call<T>('POST', path, query, body),
};

// The shapes the page reads (docs/api.md).

export interface Layer { layer_id: string; name: string | null; key?: string | null; trigger_rate_limit?: number }
export type Geometry =
  | { type: 'Polygon'; coordinates: Array<Array<[number, number]>> }
  | { type: 'MultiPolygon'; coordinates: Array<Array<Array<[number, number]>>> }
  | { type: 'LineString'; coordinates: Array<[number, number]> };
export interface Place {
  place_id: string; layer_id: string; name: string | null; latitude: number; longitude: number; radius: number;
  /** A polygon or corridor (docs/api.md "Shapes"); absent for a circle. */
  geometry?: Geometry; width?: number;
}
export interface User {
  user_id: string; username?: string; name?: string | null; display_name?: string | null; is_anonymous?: number;
  /** With user/list's q or sort: when the user's last point was taken. */
  last_location?: Stamp | null;
}
export interface Trigger {
  trigger_id: string; place_id?: string | null; layer_id?: string | null; type: string; trigger_on: string;
  trigger_after?: number | null; one_time?: number; text?: string | null; key?: string | null;
  place?: Place | null;
}
export interface Point { latitude: number; longitude: number; horizontal_accuracy?: number | null; date?: string; date_ts?: number }
export interface Stamp { date: string; date_ts: number }
export interface Transition { from: string; to: string; reason: string; outcome: string | null; date: string; date_ts: number }
export interface Machine {
  user_id: string; trigger_id: string; place_id: string; state: string;
  since?: Stamp | null; entered_at?: Stamp | null; dwell_deadline?: Stamp | null;
  last_point?: Point | null; transitions?: Transition[];
  distance_m?: number; zone?: string; explanation?: string;
  timeline?: TimelineEntry[];
}
export interface TimelineEntry {
  id: string; user_id: string; trigger_id: string; place_id: string; layer_id: string | null;
  kind: 'transition' | 'fired' | 'gated' | 'point';
  event: 'enter' | 'leave' | 'dwell' | null;
  from: string | null; to: string | null;
  gate: string | null; note: string | null; reason: string;
  point: (Point & { date: string; date_ts: number }) | null;
  zone: string | null; distance_m: number | null; firing_id: string | null;
  date: string; date_ts: number;
}
export interface Firing { trigger_id: string; place_id: string; event: string; date: string; date_ts: number; firing_id: string }
export interface ReplayClosest {
  place_id: string; trigger_ids: string[]; shape: string; radius: number;
  distance_m: number; outside_m: number; margin_m: number; point: Point; reason: string;
}
/** Which points a replay ran on (docs/api.md "Replay"). */
export interface TrackSource { kind: 'request' | 'history' | 'timeline'; history_kept?: boolean; partial?: boolean; note: string | null }
export interface ReplayAnswer {
  entries: TimelineEntry[]; firings: Firing[];
  final_states: Array<{ trigger_id: string; place_id: string; state: string; since: unknown }>; points: number;
  summary: { entries: number; firings: number };
  paging: { limit: number; total: number; next_offset?: number };
  truncated: boolean;
  /** Absent from a service older than the closest approach, the what-if and the track's source. */
  closest?: ReplayClosest[];
  track_source?: TrackSource;
  what_if?: { places: string[]; triggers: string[]; layers: string[]; draft_triggers: Array<{ trigger_id: string; place_id: string | null; layer_id: string }> };
}
export interface HistoryItem {
  event_id: string; date: string; date_ts: number; user_id: string; type: string; triggered_on: string;
  gated?: boolean; gate?: string;
  delivery?: { status: string; attempts: number; last_error?: string; last_status?: number };
  trigger: { trigger_id: string }; place: { place_id: string };
}

export interface Settings {
  tile_url: string | null; tile_attribution: { text: string; url?: string } | null;
  hysteresis: { leave_margin_min_m: number; leave_margin_ratio: number; max_accuracy_min_m: number };
}

export async function loadSettings(): Promise<Settings> {
  const res = await fetch('/inspector/settings.json');
  if (!res.ok) throw new Error(`settings: ${res.status}`);
  return (await res.json()) as Settings;
}

/** Every page of a paged list (offset/limit, `paging.next_offset`), up to `max` items. */
export async function allPages<T>(path: string, key: string, query: Query = {}, max = 1000): Promise<T[]> {
  const out: T[] = [];
  let offset: number | undefined = 0;
  while (offset !== undefined && out.length < max) {
    const page: Record<string, unknown> = await api.get(path, { ...query, offset, limit: 100 });
    const items = (page[key] ?? []) as T[];
    out.push(...items);
    const paging = page.paging as { next_offset?: number } | undefined;
    offset = items.length > 0 ? paging?.next_offset : undefined;
  }
  return out;
}
