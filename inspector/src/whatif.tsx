// What-if replay (docs/api.md "Replay", "What if"): the replay page's form for a place, trigger or
// layer as if changed and a draft trigger drawn on the map, read into `overrides` and
// `draft_triggers` of POST /1/trigger/replay; and what such a replay answered: the would-be
// firings, what was applied, and the closest approach to each place. Nothing here is stored.
import { useEffect, useState } from 'preact/hooks';
import type { Place, ReplayAnswer } from './api';
import { placeLabel, triggerLabel, type AppData } from './data';

/** The what-if part of a replay request; empty when nothing is changed. */
export interface WhatIfBody {
  overrides?: { places?: Array<Record<string, unknown>>; triggers?: Array<Record<string, unknown>>; layers?: Array<Record<string, unknown>> };
  draft_triggers?: Array<Record<string, unknown>>;
}

export interface WhatIfState {
  placeId: string; radius: string; placeFrom: string; placeTo: string;
  triggerId: string; dwell: string; oneTime: '' | 'yes' | 'no'; triggerFrom: string; triggerTo: string;
  layerId: string; rateLimit: string;
  draft: boolean; draftLat: string; draftLon: string; draftRadius: string; draftOn: 'enter' | 'leave'; draftDwell: string;
}

export const emptyWhatIf = (preset: { triggerId?: string; placeId?: string } = {}): WhatIfState => ({
  placeId: preset.placeId ?? '', radius: '', placeFrom: '', placeTo: '',
  triggerId: preset.triggerId ?? '', dwell: '', oneTime: '', triggerFrom: '', triggerTo: '',
  layerId: '', rateLimit: '',
  draft: false, draftLat: '', draftLon: '', draftRadius: '100', draftOn: 'enter', draftDwell: '',
});

/** A number field: absent when empty, refused (with the field's name) when not a number. */
function num(v: string, name: string): number | undefined {
  if (v.trim() === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`What if: ${name} is not a number.`);
  return n;
}

/** The request's what-if fields; throws a readable error for a field that is not a number. */
export function whatIfBody(s: WhatIfState): WhatIfBody {
  const body: WhatIfBody = {};
  const overrides: NonNullable<WhatIfBody['overrides']> = {};
  if (s.placeId) {
    const o: Record<string, unknown> = { place_id: s.placeId };
    const radius = num(s.radius, 'radius');
    if (radius !== undefined) o.radius = radius;
    if (s.placeFrom) o.time_from = s.placeFrom;
    if (s.placeTo) o.time_to = s.placeTo;
    if (Object.keys(o).length > 1) overrides.places = [o];
  }
  if (s.triggerId) {
    const o: Record<string, unknown> = { trigger_id: s.triggerId };
    const dwell = num(s.dwell, 'trigger_after');
    if (dwell !== undefined) o.trigger_after = dwell;
    if (s.oneTime) o.one_time = s.oneTime === 'yes' ? 1 : 0;
    if (s.triggerFrom) o.time_from = s.triggerFrom;
    if (s.triggerTo) o.time_to = s.triggerTo;
    if (Object.keys(o).length > 1) overrides.triggers = [o];
  }
  if (s.layerId) {
    const rate = num(s.rateLimit, 'trigger_rate_limit');
    if (rate !== undefined) overrides.layers = [{ layer_id: s.layerId, trigger_rate_limit: rate }];
  }
  if (Object.keys(overrides).length > 0) body.overrides = overrides;
  if (s.draft) {
    const lat = num(s.draftLat, 'the draft\'s latitude');
    const lon = num(s.draftLon, 'the draft\'s longitude');
    if (lat === undefined || lon === undefined) throw new Error('What if: click the map (or type a latitude and longitude) to place the draft trigger.');
    const d: Record<string, unknown> = { latitude: lat, longitude: lon, radius: num(s.draftRadius, 'the draft\'s radius') ?? 100, place_name: 'draft place', trigger_on: s.draftOn };
    const dwell = num(s.draftDwell, 'the draft\'s trigger_after');
    if (dwell !== undefined) d.trigger_after = dwell;
    body.draft_triggers = [d];
  }
  return body;
}

/** The places as the what-if would have them, and its drawn place, for the map. */
export function whatIfPlaces(places: Place[], s: WhatIfState, data: AppData): Place[] {
  const radius = Number(s.radius);
  const out = places.map((p) => (p.place_id === s.placeId && s.radius.trim() !== '' && Number.isFinite(radius) && !p.geometry ? { ...p, radius } : p));
  const lat = Number(s.draftLat);
  const lon = Number(s.draftLon);
  if (s.draft && s.draftLat && s.draftLon && Number.isFinite(lat) && Number.isFinite(lon)) {
    out.push({ place_id: 'draft-place-1', layer_id: data.layers[0]?.layer_id ?? '', name: 'draft place', latitude: lat, longitude: lon, radius: Number(s.draftRadius) || 100 });
  }
  return out;
}

type SetField = <K extends keyof WhatIfState>(k: K, v: WhatIfState[K]) => void;

function Field({ id, label, value, set, type = 'text', placeholder }: { id: string; label: string; value: string; set: (v: string) => void; type?: string; placeholder?: string }) {
  return (
    <label class="row">
      {label}
      <input id={id} type={type} value={value} placeholder={placeholder} onInput={(e) => set((e.target as HTMLInputElement).value)} />
    </label>
  );
}

/** The form. Empty fields change nothing; the map's click places the draft (the page passes it on). */
export function WhatIfForm({ data, state, onChange }: { data: AppData; state: WhatIfState; onChange: (s: WhatIfState) => void }) {
  const set: SetField = (k, v) => onChange({ ...state, [k]: v });
  const [open, setOpen] = useState(state.triggerId !== '' || state.placeId !== '');
  useEffect(() => {
    if (state.draft) setOpen(true);
  }, [state.draft]);
  return (
    <details id="what-if" class="what-if" open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>What if… (replay with changes that are not stored)</summary>
      <fieldset>
        <legend>A place as if changed</legend>
        <label class="row">
          Place
          <select id="wi-place" value={state.placeId} onChange={(e) => set('placeId', (e.target as HTMLSelectElement).value)}>
            <option value="">(unchanged)</option>
            {data.places.map((p) => <option key={p.place_id} value={p.place_id}>{placeLabel(p, p.place_id)}</option>)}
          </select>
        </label>
        <Field id="wi-radius" label="Radius (m)" type="number" value={state.radius} set={(v) => set('radius', v)} />
        <div class="pair-fields">
          <Field id="wi-place-from" label="Daily from" type="time" value={state.placeFrom} set={(v) => set('placeFrom', v)} />
          <Field id="wi-place-to" label="to" type="time" value={state.placeTo} set={(v) => set('placeTo', v)} />
        </div>
      </fieldset>
      <fieldset>
        <legend>A trigger as if changed</legend>
        <label class="row">
          Trigger
          <select id="wi-trigger" value={state.triggerId} onChange={(e) => set('triggerId', (e.target as HTMLSelectElement).value)}>
            <option value="">(unchanged)</option>
            {data.triggers.map((t) => <option key={t.trigger_id} value={t.trigger_id}>{triggerLabel(t, t.trigger_id)}</option>)}
          </select>
        </label>
        <Field id="wi-dwell" label="Dwell, trigger_after (s; 0: none)" type="number" value={state.dwell} set={(v) => set('dwell', v)} />
        <label class="row">
          One-time
          <select id="wi-one-time" value={state.oneTime} onChange={(e) => set('oneTime', (e.target as HTMLSelectElement).value as WhatIfState['oneTime'])}>
            <option value="">(unchanged)</option>
            <option value="yes">yes</option>
            <option value="no">no</option>
          </select>
        </label>
        <div class="pair-fields">
          <Field id="wi-trigger-from" label="Daily from" type="time" value={state.triggerFrom} set={(v) => set('triggerFrom', v)} />
          <Field id="wi-trigger-to" label="to" type="time" value={state.triggerTo} set={(v) => set('triggerTo', v)} />
        </div>
      </fieldset>
      <fieldset>
        <legend>A layer's rate limit as if changed</legend>
        <label class="row">
          Layer
          <select id="wi-layer" value={state.layerId} onChange={(e) => set('layerId', (e.target as HTMLSelectElement).value)}>
            <option value="">(unchanged)</option>
            {data.layers.map((l) => <option key={l.layer_id} value={l.layer_id}>{l.name || l.layer_id}</option>)}
          </select>
        </label>
        <Field id="wi-rate" label="trigger_rate_limit (s between firings for a user)" type="number" value={state.rateLimit} set={(v) => set('rateLimit', v)} />
      </fieldset>
      <fieldset>
        <legend>A draft trigger</legend>
        <label class="check">
          <input id="wi-draft" type="checkbox" checked={state.draft} onChange={(e) => set('draft', (e.target as HTMLInputElement).checked)} /> Try a trigger on a new place
        </label>
        {state.draft ? (
          <>
            <p class="muted">Click the map to put its centre there.</p>
            <div class="pair-fields">
              <Field id="wi-draft-lat" label="Latitude" value={state.draftLat} set={(v) => set('draftLat', v)} />
              <Field id="wi-draft-lon" label="Longitude" value={state.draftLon} set={(v) => set('draftLon', v)} />
            </div>
            <Field id="wi-draft-radius" label="Radius (m)" type="number" value={state.draftRadius} set={(v) => set('draftRadius', v)} />
            <label class="row">
              On
              <select id="wi-draft-on" value={state.draftOn} onChange={(e) => set('draftOn', (e.target as HTMLSelectElement).value as 'enter' | 'leave')}>
                <option value="enter">enter</option>
                <option value="leave">leave</option>
              </select>
            </label>
            <Field id="wi-draft-dwell" label="Dwell, trigger_after (s)" type="number" value={state.draftDwell} set={(v) => set('draftDwell', v)} />
          </>
        ) : null}
      </fieldset>
    </details>
  );
}

const isDraft = (id: string) => id.startsWith('draft-');

/** What a replay answered that a what-if reads: the would-be firings, what was applied, how close the track came. */
export function WhatIfResult({ answer, data }: { answer: ReplayAnswer; data: AppData }) {
  const place = (id: string) => (isDraft(id) ? 'draft place' : placeLabel(data.placeById.get(id), id));
  const trigger = (id: string) => (isDraft(id) ? `draft trigger (${id})` : triggerLabel(data.triggerById.get(id), id));
  const w = answer.what_if;
  const applied = w ? [...w.places.map(place), ...w.triggers.map(trigger), ...w.layers.map((l) => data.layers.find((x) => x.layer_id === l)?.name || l)] : [];
  return (
    <section class="whatif-result" id="whatif-result">
      {w ? (
        <p id="whatif-applied">
          {[
            applied.length ? `As if changed: ${applied.join('; ')}.` : '',
            w.draft_triggers.length ? `With ${w.draft_triggers.length} draft trigger${w.draft_triggers.length > 1 ? 's' : ''}.` : '',
          ].filter(Boolean).join(' ')}
        </p>
      ) : null}
      <h3>Would fire: <span id="would-fire-count">{answer.summary.firings}</span></h3>
      <ul class="firings" id="would-fire">
        {answer.firings.map((f) => (
          <li key={f.firing_id} data-trigger={f.trigger_id} data-event={f.event}>{f.date} · {f.event} · {place(f.place_id)} · {trigger(f.trigger_id)}</li>
        ))}
        {answer.firings.length === 0 ? <li class="muted">Nothing would fire{answer.closest?.length ? ': see how close the track came below' : ''}.</li> : null}
      </ul>
      {answer.closest?.length ? (
        <>
          <h3>Closest approach</h3>
          <ul class="closest" id="closest">
            {answer.closest.map((c) => (
              <li key={c.place_id} data-place={c.place_id} data-outside={c.outside_m}>
                <strong>{place(c.place_id)}</strong>: {c.reason}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
