// When the clock may fire a dwell deadline (machines/README.md "Order and time"). Phones send points
// late: a request still in flight, a backlog after being offline, or after the service was down. A
// point older than a deadline that shows the user left must still cancel the dwell, so the clock
// fires a deadline d only a little after it:
// - while the service runs, after the tolerance T (DWELL_TOLERANCE_MS): at d + T;
// - a deadline that passed while the service was down, after the grace G (DWELL_GRACE_MS) counted
//   from the first start after it, once: the starts are stored (service-starts.ts), so a service
//   that restarts more often than G still fires it;
// - for G after a start, nothing later than the last start whose grace has passed fires: a backlog
//   sent after the start may still cancel, or start, a dwell before it, and deadlines fire in order
//   (a rate limit spans places), so those after the start wait with them.
// The firing is still dated at the deadline (the tick's `at`), so the outcome of a track does not
// depend on when, within these limits, its points arrived.

export interface DwellClock {
  /** The service's starts, oldest first; the last is this process's (service-starts.ts). */
  starts: readonly number[];
  graceMs: number;
  toleranceMs: number;
}

/** The latest deadline a tick at `now` may fire (deadlines are whole ms); -Infinity while none may. */
export function tickCutoff(now: number, clock: DwellClock): number {
  const { starts, graceMs, toleranceMs } = clock;
  const current = starts.at(-1);
  if (current === undefined) return -Infinity;
  if (now >= current + graceMs) return Math.max(now - toleranceMs, current - 1);
  let settled = -Infinity;
  for (const start of starts) if (start + graceMs <= now) settled = start;
  return settled - 1;
}

/** The wall-clock time from which a tick fires `deadline` (Infinity for none, or before any start). */
export function clockFiresAt(deadline: number, clock: DwellClock): number {
  const { starts, graceMs, toleranceMs } = clock;
  const current = starts.at(-1);
  if (current === undefined || deadline === Infinity) return Infinity;
  if (deadline >= current) return Math.max(current + graceMs, deadline + toleranceMs);
  const firstAfter = starts.find((start) => start > deadline) ?? current;
  return firstAfter + graceMs;
}

/** How many starts are kept at most: dropping the oldest only makes a deadline wait longer. */
const KEPT_STARTS = 1_000;

/**
 * The starts to keep once `now` is one, `now` last: those still within the grace, and the last one
 * past it (every deadline before it is due, whatever came earlier). Starts after `now` (a clock set
 * back) are dropped.
 */
export function keptStarts(starts: readonly number[], now: number, graceMs: number): number[] {
  const sorted = [...starts.filter((start) => start < now).sort((a, b) => a - b), now];
  let firstRecent = sorted.findIndex((start) => start + graceMs > now);
  if (firstRecent === -1) firstRecent = sorted.length;
  const kept = sorted.slice(Math.max(0, firstRecent - 1));
  return kept.slice(-KEPT_STARTS);
}
