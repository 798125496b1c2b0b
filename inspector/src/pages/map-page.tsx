// The application at a glance: its layers and places on the map (each place with its hysteresis
// band), and its users: those seen last, or those a search finds by id, username or name, each a
// link to the user view.
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Settings, User } from '../api';
import { findUsers, lastSeen, recentUsers, userLabel, type AppData } from '../data';
import { MapView } from '../map';

export function MapPage({ data, settings }: { data: AppData; settings: Settings }) {
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const [users, setUsers] = useState<User[] | null>(null);
  const [usersError, setUsersError] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  useEffect(() => {
    // The answer of the latest query wins; an earlier one arriving late is dropped.
    let stale = false;
    const q = query.trim();
    const run = () => (q ? findUsers(q) : recentUsers()).then(
      (found) => !stale && (setUsers(found), setUsersError(null)),
      (e: Error) => !stale && setUsersError(e.message),
    );
    const timer = setTimeout(run, q ? 200 : 0);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [query]);
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
        <form class="user-search" role="search" onSubmit={(e) => e.preventDefault()}>
          <input id="user-search" type="search" placeholder="Find a user: id, username or name" aria-label="Find a user by id, username or name" maxLength={100} value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} />
        </form>
        <p class="muted">{query.trim() ? 'Users found' : 'Seen most recently'}</p>
        {usersError ? <p class="error">{usersError}</p> : null}
        <ul class="users">
          {(users ?? []).map((u) => (
            <li key={u.user_id} data-user={u.user_id}>
              <a href={`#/user/${encodeURIComponent(u.user_id)}`}>{userLabel(u)}</a> <span class="muted seen">{lastSeen(u)}</span>
            </li>
          ))}
          {users && users.length === 0 ? <li class="muted">{query.trim() ? 'No user matches.' : 'No user has posted a point yet.'}</li> : null}
        </ul>
      </aside>
      <section class="map-pane">
        <MapView settings={settings} places={places} fitKey="all" />
        <p class="legend">Solid circle: the place's radius (inside). Dashed: radius plus the leave margin; between the two a point changes nothing. Polygons and corridors (a line as wide as the corridor): the grey band reaches the leave margin beyond their edge.{settings.tile_url ? '' : ' Tiles are off (INSPECTOR_TILE_URL=off): the map is drawn offline.'}</p>
      </section>
    </div>
  );
}
