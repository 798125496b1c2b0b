// One (user, trigger, place) pair: the statechart with the current state, the machine's recent
// transitions (a gated firing says which gate stopped it), the decision timeline and the firings
// with their deliveries; live, like the user view, and a timeline entry picked shows its point.
import { useState } from 'preact/hooks';
import { ApiError, api, type HistoryItem, type Machine, type Settings, type TimelineEntry } from '../api';
import { placeLabel, triggerLabel, type AppData } from '../data';
import { useLive } from '../live';
import { MapView } from '../map';
import { Statechart } from '../statechart';
import { Timeline } from '../timeline';
import { FiringAttempts } from '../attempts';

const GATES: Record<string, string> = {
  date_window: 'outside the date window (date_from–date_to) of the trigger or place',
  time_window: 'outside the daily time window (time_from–time_to) of the trigger or place',
  rate_limit: "within the layer's trigger_rate_limit since this trigger last fired for the user",
  one_time_spent: 'the one-time trigger already fired for this user',
  trigger_inactive: 'the trigger was not active',
};
export const gateReason = (gate: string) => `Not fired: ${GATES[gate] ?? gate}.`;

type Section<T> = { items: T } | { unavailable: string } | { error: string } | null;

export function PairPage({ userId, triggerId, placeId, data, settings }: { userId: string; triggerId: string; placeId: string; data: AppData; settings: Settings }) {
  const [machine, setMachine] = useState<Machine | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [timeline, setTimeline] = useState<Section<TimelineEntry[]>>(null);
  const [deliveries, setDeliveries] = useState<Section<HistoryItem[]>>(null);
  const [refreshed, setRefreshed] = useState(0);
  const [picked, setPicked] = useState<TimelineEntry | null>(null);
  const [opened, setOpened] = useState<string | null>(null);
  const trigger = data.triggerById.get(triggerId);
  const place = data.placeById.get(placeId);

  // Live, like the user view: the pair's state, timeline and firings are read again whenever the
  // user's points are stored.
  const read = async () => {
    const history = (q: Record<string, string | number>) => api.get<{ history: HistoryItem[] }>('trigger/history', { user_id: userId, place_id: placeId, limit: 50, ...q });
    const [m, t, d] = await Promise.all([
      api.get<{ machines: Machine[] }>(`trigger/state/${encodeURIComponent(triggerId)}`, { user_id: userId, place_id: placeId }).then(
        (r) => r.machines[0] ?? { user_id: userId, trigger_id: triggerId, place_id: placeId, state: 'outside', explanation: 'This place is not one the trigger watches.' },
      ),
      api.get<{ entries: TimelineEntry[] }>('trigger/timeline', { user_id: userId, trigger_id: triggerId, place_id: placeId, count: 100 }).then(
        (r): Section<TimelineEntry[]> => ({ items: r.entries }),
        (e: ApiError): Section<TimelineEntry[]> =>
          e.missingMethod ? { unavailable: 'This service has no decision timeline (GET /1/trigger/timeline answered 404): the transitions above are what the machine recorded.' } : { error: e.message },
      ),
      history({ trigger_id: triggerId, include_gated: 1 })
        .catch((e: ApiError) => (e.status === 400 ? history({}) : Promise.reject(e)))
        .then(
          (r): Section<HistoryItem[]> => ({ items: r.history.filter((h) => h.trigger.trigger_id === triggerId) }),
          (e: Error): Section<HistoryItem[]> => ({ error: e.message }),
        ),
    ]);
    setMachine(m);
    setTimeline(t);
    setDeliveries(d);
    setRefreshed((n) => n + 1);
  };
  const live = useLive(userId, read, setError);

  if (error) return <p class="error">{error}</p>;
  if (!machine) return <p class="muted">Loading…</p>;
  const transitions = machine.transitions ?? [];
  const lastMove = transitions.at(-1);
  return (
    <div class="pair" data-refreshed={refreshed}>
      <h2>
        <a href={`#/user/${encodeURIComponent(userId)}`}>{userId}</a> · {triggerLabel(trigger, triggerId)} · {placeLabel(place, placeId)}{' '}
        <span class={`live ${live ? 'on' : 'off'}`} data-live={live ? 'on' : 'off'}>{live ? 'live' : 'not live'}</span>
      </h2>
      <p><a id="pair-what-if" href={`#/replay/${[userId, triggerId, placeId].map(encodeURIComponent).join('/')}`}>What if… replay this user's recent track with this trigger or place changed</a></p>
      <div class="pair-top">
        <div>
          <Statechart state={machine.state} lastFrom={lastMove?.from} lastTo={lastMove?.to} />
          <dl class="machine">
            <dt>state</dt>
            <dd id="pair-state" data-state={machine.state}>{machine.state}</dd>
            {machine.since ? (<><dt>since</dt><dd>{machine.since.date}</dd></>) : null}
            {machine.dwell_deadline ? (<><dt>dwell deadline</dt><dd>{machine.dwell_deadline.date}</dd></>) : null}
            {machine.distance_m !== undefined ? (<><dt>distance</dt><dd>{machine.distance_m} m ({machine.zone})</dd></>) : null}
            {machine.explanation ? (<><dt>why</dt><dd class="explanation">{machine.explanation}</dd></>) : null}
          </dl>
        </div>
        {place ? (
          <div class="pair-map">
            <MapView settings={settings} places={[place]} insideIds={new Set(machine.state === 'inside' || machine.state === 'dwelling' ? [placeId] : [])} current={machine.last_point ?? null} picked={picked?.point ?? null} fitKey={placeId} />
          </div>
        ) : null}
      </div>

      <h3>Transitions</h3>
      {transitions.length === 0 ? <p class="muted">None recorded (the pair has not left "outside").</p> : null}
      <ol class="transitions">
        {[...transitions].reverse().map((t, i) => (
          <li key={i} data-outcome={t.outcome ?? ''}>
            <span class="when">{t.date}</span> <span class="move">{t.from} → {t.to}</span> <span class="muted">({t.reason})</span>{' '}
            {t.outcome === 'fired' ? <span class="badge fired">fired</span> : t.outcome ? <span class="badge gated">gated: {t.outcome}</span> : null}
            {t.outcome && t.outcome !== 'fired' ? <span class="reason">{gateReason(t.outcome)}</span> : null}
          </li>
        ))}
      </ol>

      <h3>Timeline</h3>
      <div id="timeline">
        {timeline === null ? <p class="muted">Loading…</p> : 'items' in timeline ? <Timeline entries={timeline.items} current={picked?.id} onPick={setPicked} /> : 'unavailable' in timeline ? <p class="notice">{timeline.unavailable}</p> : <p class="error">{timeline.error}</p>}
      </div>

      <h3>Firings and deliveries</h3>
      <div id="deliveries">
        {deliveries === null ? <p class="muted">Loading…</p> : 'items' in deliveries ? (
          deliveries.items.length === 0 ? <p class="muted">No firings.</p> : (
            <table class="deliveries">
              <thead><tr><th>when</th><th>event</th><th>type</th><th>delivery</th><th></th></tr></thead>
              <tbody>
                {deliveries.items.map((h) => (
                  <tr key={h.event_id} data-gated={h.gated ? '1' : undefined}>
                    <td>{h.date}</td>
                    <td>{h.triggered_on}{h.gated ? ` (gated: ${h.gate})` : ''}</td>
                    <td>{h.type}</td>
                    <td>{h.delivery ? `${h.delivery.status}, ${h.delivery.attempts} attempt(s)${h.delivery.last_error ? `: ${h.delivery.last_error}` : ''}` : '—'}</td>
                    <td>{h.type === 'callback' && !h.gated ? <button type="button" class="show-attempts" aria-pressed={opened === h.event_id} onClick={() => setOpened(opened === h.event_id ? null : h.event_id)}>attempts</button> : null}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        ) : 'unavailable' in deliveries ? <p class="notice">{deliveries.unavailable}</p> : <p class="error">{deliveries.error}</p>}
        {opened ? <FiringAttempts eventId={opened} refreshed={refreshed} onChanged={() => void read().catch((e: Error) => setError(e.message))} /> : null}
      </div>
    </div>
  );
}
