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

export const loadUsers = () => allPages<User>('user/list', 'users', {}, 500);

/** The places a trigger watches: its own, or every place of its layer. */
export function placesOfTrigger(data: AppData, t: Trigger): Place[] {
  if (t.place_id) return data.placeById.has(t.place_id) ? [data.placeById.get(t.place_id)!] : [];
  return data.places.filter((p) => p.layer_id === t.layer_id);
}

export const userLabel = (u: User) => u.display_name || u.name || u.username || u.user_id;
export const placeLabel = (p: Place | undefined, id: string) => (p?.name ? p.name : id);
export const triggerLabel = (t: Trigger | undefined, id: string) =>
  t ? `${t.trigger_on}${t.trigger_after ? ` +${t.trigger_after}s` : ''} · ${t.type}${t.text ? ` “${t.text}”` : ''}${t.one_time ? ' · one-time' : ''}` : id;
