// The engine's starts, stored so that the dwell clock counts the grace of a deadline that passed
// while the service was down once, from the first start after it, however often the service
// restarts (dwell-clock.ts). Read and rewritten at each start.
import type { Store } from '../store/store.js';
import { keptStarts } from './dwell-clock.js';

/** Records a start at `now`; returns the starts the clock needs, this one last. */
export async function recordServiceStart(store: Store, now: number, graceMs: number): Promise<number[]> {
  const starts = keptStarts(await store.serviceStarts.load(), now, graceMs);
  await store.serviceStarts.save(starts);
  return starts;
}
