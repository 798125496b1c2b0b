// The application's structure as the pages need it: every layer with its places and triggers.
import { allPages, api, type Layer, type Place, type Trigger, type User } from './api';

export interface AppData {
  layers: Layer[];
  places: Place[];
  triggers: Trigger[];
  placeById: Map<string, Place>;
  triggerById: Map<string, Trigger>;
}

export async function loadAppData(): Promise<AppData> {
  const { layers } = await api.get<{ layers: Layer[] }>('layer/list');
  const per = await Promise.all(
    layers.map(async (l) => {
      const [places, triggers] = await Promise.all([
        allPages<Place>('place/list', 'places', { layer_id: l.layer_id, include_unnamed: 1 }),
        allPages<Trigger>('trigger/list', 'triggers', { layer_id: l.layer_id }),
      ]);
      return { places, triggers };
    }),
  );
  const places = per.flatMap((p) => p.places);
  const triggers = per.flatMap((p) => p.triggers);
  return { layers, places, triggers, placeById: new Map(places.map((p) => [p.place_id, p])), triggerById: new Map(triggers.map((t) => [t.trigger_id, t])) };
}

/**
 * Users by their last activity: those whose points arrived last (user/list?sort=recent), then the
 * first ones created that have posted none, so a new application's users show too.
 */
export async function recentUsers(): Promise<User[]> {
  const [recent, first] = await Promise.all([
    api.get<{ users: User[] }>('user/list', { sort: 'recent', limit: 50 }),
    api.get<{ users: User[] }>('user/list', { sort: 'created', limit: 50 }),
  ]);
  const seen = new Set(recent.users.map((u) => u.user_id));
  return [...recent.users, ...first.users.filter((u) => !seen.has(u.user_id) && !u.last_location)];
}
export const findUsers = (q: string) => api.get<{ users: User[] }>('user/list', { q, limit: 50 }).then((r) => r.users);

/** The places a trigger watches: its own, or every place of its layer. */
export function placesOfTrigger(data: AppData, t: Trigger): Place[] {
  if (t.place_id) return data.placeById.has(t.place_id) ? [data.placeById.get(t.place_id)!] : [];
  return data.places.filter((p) => p.layer_id === t.layer_id);
}

/**
 * A user's name; anonymous users, all called "Anonymous" unless the app named them, also show the
 * end of their id so that two of them read apart.
 */
export function userLabel(u: User): string {
  const name = u.name || u.display_name || u.username || u.user_id;
  const anonymous = u.is_anonymous === 1 || name === 'Anonymous';
  return anonymous && !u.name ? `${name} ·${u.user_id.slice(-6)}` : name;
}

/** "5 min ago", "3 h ago", or the date: when the user's last point was taken. */
export function lastSeen(u: User, now = Date.now()): string {
  if (!u.last_location) return 'no location';
  const s = Math.max(0, Math.round(now / 1000 - u.last_location.date_ts));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  if (s < 129_600) return `${Math.round(s / 3600)} h ago`;
  return u.last_location.date.slice(0, 10);
}
export const placeLabel = (p: Place | undefined, id: string) => (p?.name ? p.name : id);
export const triggerLabel = (t: Trigger | undefined, id: string) =>
  t ? `${t.trigger_on}${t.trigger_after ? ` +${t.trigger_after}s` : ''} · ${t.type}${t.text ? ` “${t.text}”` : ''}${t.one_time ? ' · one-time' : ''}` : id;
