// Where a replay's track comes from (docs/api.md "Replay", source): whether the application keeps
// location history, what the service replays for a user without it, and which points an answer
// ran on.
import { useEffect, useState } from 'preact/hooks';
import { api, type TrackSource } from './api';

/** The application's store_history, from application/list (null while unknown or unreadable). */
export function useKeepsHistory(): boolean | null {
  const [kept, setKept] = useState<boolean | null>(null);
  useEffect(() => {
    api.get<{ applications: Array<{ store_history?: number | boolean }> }>('application/list').then(
      (r) => setKept(Boolean(r.applications[0]?.store_history)),
      () => setKept(null),
    );
  }, []);
  return kept;
}

/** What replaying a user's recent track means for this application. */
export function HistoryNotice({ kept }: { kept: boolean | null }) {
  if (kept === null) return null;
  if (kept) {
    return (
      <p class="muted" id="history-notice" data-history="on">
        Location history is on: a user's recent track is replayed from every point the service stored.
      </p>
    );
  }
  return (
    <p class="notice" id="history-notice" data-history="off">
      Location history is off for this application (store_history). A user's recent track is replayed from what the service
      keeps anyway: the points behind their decision timeline (each transition, firing, gated firing and noted point) and
      their last location, for as long as the timeline keeps them. That is fewer points than the phone sent: the decisions
      taken are there, but a what-if that moves a boundary or lengthens a dwell may decide differently than the full track
      would, and the closest approach is measured on those points only.
    </p>
  );
}

/** Which points an answer ran on, and what that means (the answer's own words). */
export function TrackSourceNote({ source, points }: { source: TrackSource | undefined; points: number }) {
  if (!source || source.kind === 'request') return null;
  return (
    <p class={source.kind === 'timeline' ? 'notice' : 'muted'} id="track-source" data-kind={source.kind}>
      Replayed {points} kept point{points === 1 ? '' : 's'}. {source.note}
    </p>
  );
}
