// Replay: a developer pastes or uploads a track, or names a user whose kept points to replay, POST
// /1/trigger/replay runs it through the rules (no side effects), optionally as if places, triggers
// or layers were changed or with a draft trigger (whatif.tsx), and a scrubber walks through it,
// showing each pair's state and the firings up to that moment.
import { useMemo, useState } from 'preact/hooks';
import { ApiError, api, type Point, type ReplayAnswer, type Settings, type TimelineEntry } from '../api';
import { placeLabel, placesOfTrigger, triggerLabel, type AppData } from '../data';
import { MapView } from '../map';
import { Timeline } from '../timeline';
import { HistoryNotice, TrackSourceNote, useKeepsHistory } from '../replay-source';
import { readTrack } from '../track';
import { emptyWhatIf, whatIfBody, whatIfPlaces, WhatIfForm, WhatIfResult, type WhatIfState } from '../whatif';

const pairKey = (e: { trigger_id: string; place_id: string }) => `${e.trigger_id}/${e.place_id}`;

/** Opened from a pair (#/replay/<user>/<trigger>/<place>): that user's kept points, that trigger and place ready to change. */
export interface ReplayPreset { userId?: string; triggerId?: string; placeId?: string }

export function ReplayPage({ data, settings, preset = {} }: { data: AppData; settings: Settings; preset?: ReplayPreset }) {
  const [text, setText] = useState('');
  const [userId, setUserId] = useState(preset.userId ?? '');
  const [kept, setKept] = useState(preset.userId !== undefined);
  const [whatIf, setWhatIf] = useState<WhatIfState>(() => emptyWhatIf(preset));
  const keepsHistory = useKeepsHistory();
  const [answer, setAnswer] = useState<ReplayAnswer | null>(null);
  const [track, setTrack] = useState<Point[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [cursor, setCursor] = useState(0);

  const run = async () => {
    setError(null);
    setBusy(true);
    try {
      if (kept && !userId.trim()) throw new Error('Name the user whose kept points to replay.');
      const read = kept ? { body: { source: 'history' }, points: [] } : readTrack(text);
      const scope = userId.trim() ? { user_id: userId.trim() } : { trigger_ids: data.triggers.map((t) => t.trigger_id) };
      const res = await api.post<ReplayAnswer>('trigger/replay', { ...read.body, ...scope, ...whatIfBody(whatIf) });
      setTrack(read.points.length ? read.points : [...new Map(res.entries.flatMap((e) => (e.point ? [[e.point.date_ts, e.point] as const] : []))).values()]);
      setAnswer(res);
      setCursor(0);
    } catch (e) {
      setAnswer(null);
      setError(e instanceof ApiError && e.missingMethod ? 'This service has no replay (POST /1/trigger/replay answered 404).' : (e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const upload = async (e: Event) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    if (file) setText(await file.text());
  };

  // The moments to scrub through: the track's start (before any entry), then each distinct time an
  // entry was recorded at, oldest first.
  const steps = useMemo(() => [-Infinity, ...[...new Set((answer?.entries ?? []).map((e) => e.date_ts))].sort((a, b) => a - b)], [answer]);
  const at = steps[Math.min(cursor, steps.length - 1)] ?? -Infinity;
  const upTo = useMemo(() => (answer?.entries ?? []).filter((e) => e.date_ts <= at), [answer, at]);
  const states = useMemo(() => {
    const m = new Map<string, { trigger_id: string; place_id: string; state: string }>();
    for (const e of answer?.entries ?? []) if (!m.has(pairKey(e))) m.set(pairKey(e), { trigger_id: e.trigger_id, place_id: e.place_id, state: e.from ?? 'outside' });
    for (const e of upTo) if (e.to) m.set(pairKey(e), { trigger_id: e.trigger_id, place_id: e.place_id, state: e.to });
    return [...m.values()];
  }, [answer, upTo]);
  const firings = (answer?.firings ?? []).filter((f) => f.date_ts <= at);
  const current = [...upTo].reverse().find((e) => e.point)?.point ?? null;
  const currentEntry: TimelineEntry | undefined = upTo.at(-1);
  const places = useMemo(() => whatIfPlaces([...new Set(data.triggers.flatMap((t) => placesOfTrigger(data, t)))], whatIf, data), [data, whatIf]);
  const placeDraft = (at: { latitude: number; longitude: number }) => {
    if (whatIf.draft) setWhatIf({ ...whatIf, draftLat: at.latitude.toFixed(6), draftLon: at.longitude.toFixed(6) });
  };
  const insideIds = useMemo(() => new Set(states.filter((s) => s.state === 'inside' || s.state === 'dwelling').map((s) => s.place_id)), [states]);
  const tracks = useMemo(() => [{ points: track }], [track]);

  return (
    <div class="split">
      <aside>
        <h2>Replay a track</h2>
        <HistoryNotice kept={keepsHistory} />
        <fieldset class="source">
          <legend>Track</legend>
          <label class="check">
            <input type="radio" name="source" id="source-track" checked={!kept} onChange={() => setKept(false)} /> Pasted or uploaded
          </label>
          <label class="check">
            <input type="radio" name="source" id="source-kept" checked={kept} onChange={() => setKept(true)} /> The user's recent track, as the service kept it
          </label>
        </fieldset>
        {kept ? null : (
          <>
        <p class="muted">location/update points (JSON array), a GeoJSON LineString or Feature, or GPX. The replay runs the application's rules on it and changes nothing.</p>
        <textarea id="track" rows={8} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} placeholder='[{"date":"2024-05-01T10:00:00Z","location":{"position":{"latitude":45.5,"longitude":-122.6,"horizontal_accuracy":10}}}]' />
        <label class="row">
          Upload <input id="track-file" type="file" accept=".json,.geojson,.gpx,application/json,application/gpx+xml" onChange={upload} />
        </label>
          </>
        )}
        <label class="row">
          As user (their layers and triggers; empty: every trigger) <input id="replay-user" value={userId} onInput={(e) => setUserId((e.target as HTMLInputElement).value)} />
        </label>
        <WhatIfForm data={data} state={whatIf} onChange={setWhatIf} />
        <button type="button" id="run-replay" disabled={busy} onClick={() => void run()}>Run replay</button>
        {error ? <p class="error" role="alert">{error}</p> : null}
        {answer ? (
          <div class="replay-result" data-points={answer.points}>
            <TrackSourceNote source={answer.track_source} points={answer.points} />
            <WhatIfResult answer={answer} data={data} />
            <label class="row">
              Step {steps.length ? cursor + 1 : 0} / {steps.length}
              <input id="scrub" type="range" min={0} max={Math.max(0, steps.length - 1)} value={cursor} onInput={(e) => setCursor(Number((e.target as HTMLInputElement).value))} />
            </label>
            <p class="muted">{currentEntry ? currentEntry.date : 'start of the track'}</p>
            {answer.truncated ? (
              <p class="muted" id="replay-truncated">
                The first {answer.entries.length} of {answer.summary.entries} entries ({answer.summary.firings} firings in all): the replay answers its timeline in pages.
              </p>
            ) : null}
            <table class="pairs">
              <thead><tr><th>trigger</th><th>place</th><th>state</th></tr></thead>
              <tbody>
                {states.map((s) => (
                  <tr key={pairKey(s)} data-trigger={s.trigger_id} data-place={s.place_id} data-state={s.state}>
                    <td>{triggerLabel(data.triggerById.get(s.trigger_id), s.trigger_id)}</td>
                    <td>{placeLabel(data.placeById.get(s.place_id), s.place_id)}</td>
                    <td><span class={`state ${s.state}`}>{s.state}</span></td>
                  </tr>
                ))}
                {states.length === 0 ? <tr><td colSpan={3} class="muted">No pair moved.</td></tr> : null}
              </tbody>
            </table>
            <h3>Firings so far: <span id="firing-count">{firings.length}</span> of {answer.firings.length}</h3>
            <ul class="firings">
              {firings.map((f) => <li key={f.firing_id}>{f.date} · {f.event} · {placeLabel(data.placeById.get(f.place_id), f.place_id)}</li>)}
            </ul>
            <h3>Entries</h3>
            <Timeline entries={upTo} current={currentEntry?.id} />
          </div>
        ) : null}
      </aside>
      <section class="map-pane">
        <MapView settings={settings} places={places} insideIds={insideIds} tracks={tracks} current={current} fitKey={answer ? `r-${answer.points}-${track.length}` : 'places'} onMapClick={placeDraft} />
      </section>
    </div>
  );
}
