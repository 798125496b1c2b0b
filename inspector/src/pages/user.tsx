// One user: their track and last point on the map, the places they are near, and the state of
// every (trigger, place) pair, kept live by GET /1/inspector/events: when the user's points are
// stored, the page reads their location and states again.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, api, type Machine, type Point, type Settings, type User } from '../api';
import { placeLabel, placesOfTrigger, triggerLabel, userLabel, type AppData } from '../data';
import { distanceM, zoneOf } from '../geo';
import { watchUser } from '../live';
import { MapView } from '../map';

interface ApiPoint { date: string; date_ts: number; location: { position: { latitude: number; longitude: number; horizontal_accuracy: number | null } } }
const toPoint = (p: ApiPoint): Point => ({ ...p.location.position, date: p.date, date_ts: p.date_ts });

/** Triggers whose states are read (one request each). */
const MAX_TRIGGERS = 50;

export function UserPage({ userId, data, settings }: { userId: string; data: AppData; settings: Settings }) {
  const [user, setUser] = useState<User | null>(null);
  const [track, setTrack] = useState<Point[]>([]);
  const [last, setLast] = useState<Point | null>(null);
  const [machines, setMachines] = useState<Machine[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState(false);
  const [keepsHistory, setKeepsHistory] = useState(true);
  const [refreshed, setRefreshed] = useState(0);
  const busy = useRef<Promise<void> | null>(null);
  const again = useRef(false);

  const refresh = async () => {
    const [lastRes, history, states] = await Promise.all([
      api.get<ApiPoint>('location/last', { user_id: userId }).then(toPoint, (e) => (e instanceof ApiError && e.status === 404 ? null : Promise.reject(e))),
      api.get<{ points: ApiPoint[] }>('location/history', { user_id: userId, count: 500, sort: 'asc' }).then((h) => h.points.map(toPoint), () => []),
      Promise.all(
        data.triggers.slice(0, MAX_TRIGGERS).map((t) => api.get<{ machines: Machine[] }>(`trigger/state/${encodeURIComponent(t.trigger_id)}`, { user_id: userId }).then((r) => r.machines)),
      ).then((all) => all.flat()),
    ]);
    setLast(lastRes);
    setKeepsHistory(history.length > 0);
    // Without stored history, the track is the last points seen while the page is open.
    setTrack((seen) => (history.length > 0 ? history : lastRes && seen.at(-1)?.date_ts !== lastRes.date_ts ? [...seen, lastRes] : seen));
    setMachines(states);
    setRefreshed((n) => n + 1);
  };
  // One read at a time; notes that arrive meanwhile cause one more.
  const schedule = () => {
    if (busy.current) {
      again.current = true;
      return;
    }
    busy.current = refresh()
      .catch((e: Error) => setError(e.message))
      .finally(() => {
        busy.current = null;
        if (again.current) {
          again.current = false;
          schedule();
        }
      });
  };

  useEffect(() => {
    api.get<User>(`user/info/${encodeURIComponent(userId)}`).then(setUser, (e: Error) => setError(e.message));
    schedule();
    const handle = watchUser(userId, schedule, setLive);
    return () => handle.stop();
  }, [userId]);

  const near = useMemo(() => {
    if (!last) return [];
    return data.places
      .map((p) => {
        const d = distanceM(last.latitude, last.longitude, p.latitude, p.longitude);
        const zone = zoneOf(p, last.latitude, last.longitude, settings);
        return { p, d, zone };
      })
      .sort((a, b) => a.d - b.d)
      .filter((x, i) => i < 5 || x.d < 2000)
      .slice(0, 10);
  }, [last, data, settings]);
  const insideIds = useMemo(() => new Set((machines ?? []).filter((m) => m.state === 'inside' || m.state === 'dwelling').map((m) => m.place_id)), [machines]);
  const tracks = useMemo(() => [{ points: track }], [track]);
  const places = useMemo(() => [...new Set(data.triggers.flatMap((t) => placesOfTrigger(data, t)))], [data]);

  if (error) return <p class="error">{error}</p>;
  return (
    <div class="split">
      <aside>
        <h2>
          {user ? userLabel(user) : userId} <span class={`live ${live ? 'on' : 'off'}`} data-live={live ? 'on' : 'off'}>{live ? 'live' : 'not live'}</span>
        </h2>
        <p class="muted">
          {last ? `Last point ${last.date} (${last.latitude.toFixed(5)}, ${last.longitude.toFixed(5)}, ±${last.horizontal_accuracy ?? 0} m)` : 'No location yet.'}
        </p>
        {!keepsHistory && last ? <p class="muted">No stored history (the application's store_history is off): the track shows the points seen since this page opened.</p> : null}
        <h3>Near</h3>
        <ul class="near">
          {near.map(({ p, d, zone }) => (
            <li key={p.place_id} data-zone={zone}>
              {placeLabel(p, p.place_id)} <span class="muted">{Math.round(d)} m · {zone}</span>
            </li>
          ))}
          {near.length === 0 ? <li class="muted">—</li> : null}
        </ul>
        <h3>Pairs</h3>
        <table class="pairs" data-refreshed={refreshed}>
          <thead>
            <tr><th>trigger</th><th>place</th><th>state</th><th>why</th></tr>
          </thead>
          <tbody>
            {(machines ?? []).map((m) => {
              const last = m.transitions?.at(-1);
              return (
                <tr key={`${m.trigger_id}/${m.place_id}`} data-trigger={m.trigger_id} data-place={m.place_id} data-state={m.state}>
                  <td>{triggerLabel(data.triggerById.get(m.trigger_id), m.trigger_id)}</td>
                  <td>{placeLabel(data.placeById.get(m.place_id), m.place_id)}</td>
                  <td>
                    <a class={`state ${m.state}`} href={`#/pair/${encodeURIComponent(userId)}/${encodeURIComponent(m.trigger_id)}/${encodeURIComponent(m.place_id)}`}>{m.state}</a>
                  </td>
                  <td class="why">{m.explanation ?? (last ? `${last.from} → ${last.to} (${last.reason}${last.outcome && last.outcome !== 'fired' ? `, not fired: ${last.outcome}` : last.outcome ? ', fired' : ''})` : '')}</td>
                </tr>
              );
            })}
            {machines && machines.length === 0 ? <tr><td colSpan={4} class="muted">No triggers.</td></tr> : null}
          </tbody>
        </table>
      </aside>
      <section class="map-pane">
        <MapView settings={settings} places={places} insideIds={insideIds} tracks={tracks} current={last} fitKey={last ? `u-${userId}` : undefined} />
      </section>
    </div>
  );
}
