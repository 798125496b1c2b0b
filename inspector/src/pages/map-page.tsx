// The application at a glance: its layers and places on the map (each place with its hysteresis
// band), and its users, each a link to the user view.
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Settings, User } from '../api';
import { loadUsers, userLabel, type AppData } from '../data';
import { MapView } from '../map';

export function MapPage({ data, settings }: { data: AppData; settings: Settings }) {
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const [users, setUsers] = useState<User[] | null>(null);
  const [usersError, setUsersError] = useState<string | null>(null);
  useEffect(() => {
    loadUsers().then(setUsers, (e: Error) => setUsersError(e.message));
  }, []);
  const places = useMemo(() => data.places.filter((p) => !hidden.has(p.layer_id)), [data, hidden]);
  const toggle = (id: string) => {
    const next = new Set(hidden);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setHidden(next);
  };
  return (
    <div class="split">
      <aside>
        <h2>Layers</h2>
        <ul class="layers">
          {data.layers.map((l) => (
            <li key={l.layer_id}>
              <label>
                <input type="checkbox" checked={!hidden.has(l.layer_id)} onChange={() => toggle(l.layer_id)} /> {l.name ?? l.layer_id}{' '}
                <span class="muted">({data.places.filter((p) => p.layer_id === l.layer_id).length} places)</span>
              </label>
            </li>
          ))}
        </ul>
        <h2>Places</h2>
        <ul class="places">
          {places.map((p) => (
            <li key={p.place_id} data-place={p.place_id}>
              {p.name ?? p.place_id} <span class="muted">{p.radius} m</span>
            </li>
          ))}
          {places.length === 0 ? <li class="muted">No places.</li> : null}
        </ul>
        <h2>Users</h2>
        {usersError ? <p class="error">{usersError}</p> : null}
        <ul class="users">
          {(users ?? []).map((u) => (
            <li key={u.user_id}>
              <a href={`#/user/${encodeURIComponent(u.user_id)}`}>{userLabel(u)}</a>
            </li>
          ))}
          {users && users.length === 0 ? <li class="muted">No users yet.</li> : null}
        </ul>
      </aside>
      <section class="map-pane">
        <MapView settings={settings} places={places} fitKey="all" />
        <p class="legend">Solid circle: the place's radius (inside). Dashed: radius plus the leave margin; between the two a point changes nothing. Polygons and corridors (a line as wide as the corridor): the grey band reaches the leave margin beyond their edge.{settings.tile_url ? '' : ' No tiles are configured (INSPECTOR_TILE_URL): the map is drawn offline.'}</p>
      </section>
    </div>
  );
}
