// When the clock may fire a dwell deadline (machines/README.md "Order and time"). A phone that was
// offline, or that could not reach a service that was down, sends its backlog late; a point older
// than a deadline that shows the user left must still cancel the dwell. So the clock fires a
// deadline only once the service has been up for the grace after it: at max(deadline, start) +
// grace. The firing is still dated at the deadline (the tick's `at`), so the outcome of a track
// does not depend on when, within the grace, its points arrived.

/** The latest deadline a tick at `now` may fire; -Infinity while none may (too soon after the start). */
export function tickCutoff(now: number, startedAt: number, graceMs: number): number {
  const upTo = now - graceMs;
  return upTo >= startedAt ? upTo : -Infinity;
}

/** The wall-clock time at which the clock fires `deadline` (Infinity for none). */
export function clockFiresAt(deadline: number, startedAt: number, graceMs: number): number {
  return Math.max(deadline, startedAt) + graceMs;
}
