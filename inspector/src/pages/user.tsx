// One user: their track and last point on the map (framed on the track and the places near it,
// over a time range the developer picks), the places they are near, the state of every (trigger,
// place) pair, and their decision timeline across every pair, where an entry picked shows its point
// on the map. Kept live by GET /1/inspector/events: when the user's points are stored, the page
// reads their location, states and timeline again.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, api, type Machine, type Point, type Settings, type TimelineEntry, type User } from '../api';
import { placeLabel, placesOfTrigger, triggerLabel, userLabel, type AppData } from '../data';
import { distanceM, edgeM, zoneOf } from '../geo';
import { useLive } from '../live';
import { MapView, pointTime } from '../map';
import { Timeline } from '../timeline';

interface ApiPoint { date: string; date_ts: number; location: { position: { latitude: number; longitude: number; horizontal_accuracy: number | null } } }
const toPoint = (p: ApiPoint): Point => ({ ...p.location.position, date: p.date, date_ts: p.date_ts });

/** Triggers whose states are read (one request each). */
const MAX_TRIGGERS = 50;
/** A place this close to the track (beyond its radius) is "near" it and framed with it. */
const NEAR_TRACK_M = 1000;

type Section<T> = { items: T } | { unavailable: string } | { error: string } | null;

export function UserPage({ userId, data, settings }: { userId: string; data: AppData; settings: Settings }) {
  const [user, setUser] = useState<User | null>(null);
  const [track, setTrack] = useState<Point[]>([]);
  const [last, setLast] = useState<Point | null>(null);
  const [machines, setMachines] = useState<Machine[] | null>(null);
  const [timeline, setTimeline] = useState<Section<TimelineEntry[]>>(null);
  const [error, setError] = useState<string | null>(null);
  const [keepsHistory, setKeepsHistory] = useState(true);
  const [refreshed, setRefreshed] = useState(0);
  const [range, setRange] = useState<{ from: number; to: number | null }>({ from: 0, to: null });
  const [picked, setPicked] = useState<TimelineEntry | null>(null);

  const refresh = async () => {
    const [lastRes, history, states, entries] = await Promise.all([
      api.get<ApiPoint>('location/last', { user_id: userId }).then(toPoint, (e) => (e instanceof ApiError && e.status === 404 ? null : Promise.reject(e))),
      api.get<{ points: ApiPoint[] }>('location/history', { user_id: userId, count: 500, sort: 'asc' }).then((h) => h.points.map(toPoint), () => []),
      Promise.all(
        data.triggers.slice(0, MAX_TRIGGERS).map((t) => api.get<{ machines: Machine[] }>(`trigger/state/${encodeURIComponent(t.trigger_id)}`, { user_id: userId }).then((r) => r.machines)),
      ).then((all) => all.flat()),
      api.get<{ entries: TimelineEntry[] }>('trigger/timeline', { user_id: userId, count: 50 }).then(
        (r): Section<TimelineEntry[]> => ({ items: r.entries }),
        (e: ApiError): Section<TimelineEntry[]> => (e.missingMethod ? { unavailable: 'This service has no decision timeline (GET /1/trigger/timeline answered 404).' } : { error: e.message }),
      ),
    ]);
    setLast(lastRes);
    setKeepsHistory(history.length > 0);
    // Without stored history, the track is the last points seen while the page is open.
    setTrack((seen) => (history.length > 0 ? history : lastRes && seen.at(-1)?.date_ts !== lastRes.date_ts ? [...seen, lastRes] : seen));
    setMachines(states);
    setTimeline(entries);
    setRefreshed((n) => n + 1);
  };
  const live = useLive(userId, refresh, setError);

  useEffect(() => {
    api.get<User>(`user/info/${encodeURIComponent(userId)}`).then(setUser, (e: Error) => setError(e.message));
  }, [userId]);

  // The range's end follows new points until the developer moves it.
  const to = range.to === null ? track.length - 1 : Math.min(range.to, track.length - 1);
  const from = Math.min(range.from, Math.max(0, to));
  const shown = useMemo(() => track.slice(from, to + 1), [track, from, to]);

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
  const tracks = useMemo(() => [{ points: shown }], [shown]);
  const places = useMemo(() => [...new Set(data.triggers.flatMap((t) => placesOfTrigger(data, t)))], [data]);
  // Frame the track in range and the places within reach of it, not every place of the app.
  const frame = useMemo(() => {
    const pts = shown.length > 0 ? shown : last ? [last] : [];
    const step = Math.max(1, Math.floor(pts.length / 200));
    const sample = pts.filter((_, i) => i % step === 0);
    const beyondEdge = (p: (typeof places)[number], pt: Point) => (p.geometry ? edgeM(p, pt.latitude, pt.longitude) : distanceM(pt.latitude, pt.longitude, p.latitude, p.longitude) - p.radius);
    const close = places.filter((p) => sample.some((pt) => beyondEdge(p, pt) <= NEAR_TRACK_M));
    return [...pts, ...close];
  }, [shown, last, places]);
  const fitKey = `u-${userId}-${from}-${range.to === null ? 'end' : to}-${frame.length > 0 ? 'some' : 'none'}`;

  if (error) return <p class="error">{error}</p>;
  return (
    <div class="split user-view">
      <aside>
        <h2>
          {user ? userLabel(user) : userId} <span class={`live ${live ? 'on' : 'off'}`} data-live={live ? 'on' : 'off'}>{live ? 'live' : 'not live'}</span>
        </h2>
        <p class="muted user-id">{userId}</p>
        <p class="muted">
          {last ? `Last point ${pointTime(last)} (${last.latitude.toFixed(5)}, ${last.longitude.toFixed(5)}, ±${last.horizontal_accuracy ?? 0} m)` : 'No location yet.'}
        </p>
        {!keepsHistory && last ? <p class="muted">No stored history (the application's store_history is off): the track shows the points seen since this page opened.</p> : null}
        {track.length > 1 ? (
          <fieldset class="range" data-shown={shown.length}>
            <legend>Track shown: {shown.length} of {track.length} points</legend>
            <label class="row">
              from <span class="when" id="range-from-time">{pointTime(track[from])}</span>
              <input id="range-from" type="range" min={0} max={track.length - 1} value={from} onInput={(e) => setRange({ from: Math.min(Number((e.target as HTMLInputElement).value), to), to: range.to })} />
            </label>
            <label class="row">
              to <span class="when" id="range-to-time">{pointTime(track[to])}</span>
              <input id="range-to" type="range" min={0} max={track.length - 1} value={to} onInput={(e) => {
                const v = Math.max(Number((e.target as HTMLInputElement).value), from);
                setRange({ from, to: v >= track.length - 1 ? null : v });
              }} />
            </label>
          </fieldset>
        ) : null}
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
        <div class="scroll-x">
          <table class="pairs" data-refreshed={refreshed}>
            <thead>
              <tr><th>trigger</th><th>place</th><th>state</th><th>why</th></tr>
            </thead>
            <tbody>
              {(machines ?? []).map((m) => {
                const move = m.transitions?.at(-1);
                return (
                  <tr key={`${m.trigger_id}/${m.place_id}`} data-trigger={m.trigger_id} data-place={m.place_id} data-state={m.state}>
                    <td>{triggerLabel(data.triggerById.get(m.trigger_id), m.trigger_id)}</td>
                    <td>{placeLabel(data.placeById.get(m.place_id), m.place_id)}</td>
                    <td>
                      <a class={`state ${m.state}`} href={`#/pair/${encodeURIComponent(userId)}/${encodeURIComponent(m.trigger_id)}/${encodeURIComponent(m.place_id)}`}>{m.state}</a>
                    </td>
                    <td class="why">{m.explanation ?? (move ? `${move.from} → ${move.to} (${move.reason}${move.outcome && move.outcome !== 'fired' ? `, not fired: ${move.outcome}` : move.outcome ? ', fired' : ''})` : '')}</td>
                  </tr>
                );
              })}
              {machines && machines.length === 0 ? <tr><td colSpan={4} class="muted">No triggers.</td></tr> : null}
            </tbody>
          </table>
        </div>
        <h3>Timeline</h3>
        <p class="muted">Every pair's decisions, newest first; pick one to see its point on the map.</p>
        <div id="user-timeline" data-refreshed={refreshed}>
          {timeline === null ? <p class="muted">Loading…</p> : 'items' in timeline ? (
            <Timeline entries={timeline.items} current={picked?.id} onPick={setPicked} names={data} />
          ) : 'unavailable' in timeline ? <p class="notice">{timeline.unavailable}</p> : <p class="error">{timeline.error}</p>}
        </div>
      </aside>
      <section class="map-pane">
        <MapView settings={settings} places={places} insideIds={insideIds} tracks={tracks} current={last} picked={picked?.point ?? null} frame={frame} fitKey={fitKey} />
      </section>
    </div>
  );
}
