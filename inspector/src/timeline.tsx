// Timeline entries (GET /1/trigger/timeline, replay): what happened to a pair, newest or oldest
// first as given, with the gate that stopped a firing and its reason.
import type { TimelineEntry } from './api';

const fmtDate = (e: { date: string }) => e.date.replace('T', ' ').replace(/\.\d+/, '');

export function Timeline({ entries, current, onPick }: { entries: TimelineEntry[]; current?: string; onPick?: (e: TimelineEntry) => void }) {
  if (entries.length === 0) return <p class="muted">Nothing recorded yet.</p>;
  return (
    <ol class="timeline">
      {entries.map((e) => (
        <li key={e.id} class={`entry kind-${e.kind}${current === e.id ? ' current' : ''}`} data-kind={e.kind} data-gate={e.gate ?? undefined} onClick={onPick ? () => onPick(e) : undefined}>
          <span class="when">{fmtDate(e)}</span>
          <span class={`badge ${e.kind}`}>{e.kind}{e.event ? ` · ${e.event}` : ''}</span>
          {e.from || e.to ? <span class="move">{e.from ?? '—'} → {e.to ?? '—'}</span> : null}
          {e.gate ? <span class="gate">gate: {e.gate}</span> : null}
          {e.note ? <span class="note">{e.note}</span> : null}
          {e.distance_m !== null && e.distance_m !== undefined ? <span class="dist">{Math.round(e.distance_m)} m{e.zone ? ` (${e.zone})` : ''}</span> : null}
          <span class="reason">{e.reason}</span>
        </li>
      ))}
    </ol>
  );
}
