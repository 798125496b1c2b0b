// Timeline entries (GET /1/trigger/timeline, replay): what happened to a pair, newest or oldest
// first as given, with the gate that stopped a firing and its reason. Given the app's names, each
// entry also names its trigger and place (a user's timeline spans pairs); given `onPick`, an entry
// can be picked (click or Enter) to show its point.
import type { TimelineEntry } from './api';
import { placeLabel, triggerLabel, type AppData } from './data';

const fmtDate = (e: { date: string }) => e.date.replace('T', ' ').replace(/\.\d+/, '');

/** The entry's place and trigger: the app's current objects, else the names the entry carries (a deleted trigger's too). */
function pairName(e: TimelineEntry, names: Pick<AppData, 'placeById' | 'triggerById'>): string {
  const place = names.placeById.get(e.place_id);
  const trigger = names.triggerById.get(e.trigger_id);
  const placeText = place ? placeLabel(place, e.place_id) : e.place_name || e.place_id;
  const triggerText = trigger ? triggerLabel(trigger, e.trigger_id) : e.trigger_key || e.trigger_id;
  return `${placeText} · ${triggerText}${e.trigger_deleted ? ' (deleted)' : ''}`;
}

interface Props {
  entries: TimelineEntry[];
  current?: string;
  onPick?: (e: TimelineEntry) => void;
  names?: Pick<AppData, 'placeById' | 'triggerById'>;
}

export function Timeline({ entries, current, onPick, names }: Props) {
  if (entries.length === 0) return <p class="muted">Nothing recorded yet.</p>;
  return (
    <ol class={`timeline${onPick ? ' pickable' : ''}`}>
      {entries.map((e) => (
        <li
          key={e.id}
          class={`entry kind-${e.kind}${current === e.id ? ' current' : ''}`}
          data-kind={e.kind}
          data-gate={e.gate ?? undefined}
          data-entry={e.id}
          tabIndex={onPick ? 0 : undefined}
          role={onPick ? 'button' : undefined}
          aria-pressed={onPick ? current === e.id : undefined}
          onClick={onPick ? () => onPick(e) : undefined}
          onKeyDown={onPick ? (k) => (k.key === 'Enter' || k.key === ' ') && (k.preventDefault(), onPick(e)) : undefined}
        >
          <span class="when">{fmtDate(e)}</span>
          <span class={`badge ${e.kind}`}>{e.kind}{e.event ? ` · ${e.event}` : ''}</span>
          {e.from || e.to ? <span class="move">{e.from ?? '—'} → {e.to ?? '—'}</span> : null}
          {e.gate ? <span class="gate">gate: {e.gate}</span> : null}
          {e.note ? <span class="note">{e.note}</span> : null}
          {e.distance_m !== null && e.distance_m !== undefined ? <span class="dist">{Math.round(e.distance_m)} m{e.zone ? ` (${e.zone})` : ''}</span> : null}
          {names ? <span class="pair-name">{pairName(e, names)}</span> : null}
          <span class="reason">{e.reason}</span>
        </li>
      ))}
    </ol>
  );
}
