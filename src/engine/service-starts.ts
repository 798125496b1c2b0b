// The engine's starts, stored so that the dwell clock counts the grace of a deadline that passed
// while the service was down once, from the first start after it, however often the service
// restarts (dwell-clock.ts). One small document, read and rewritten at each start.
import type { Store } from '../store/store.js';
import type { ServiceStartsDoc } from '../store/documents.js';
import { keptStarts } from './dwell-clock.js';

const ID = 'dwell_clock';

/** Records a start at `now`; returns the starts the clock needs, this one last. */
export async function recordServiceStart(store: Store, now: number, graceMs: number): Promise<number[]> {
  const col = store.collection<ServiceStartsDoc>('service_starts');
  const stored = await col.findOne({ _id: ID });
  const starts = keptStarts(stored?.starts ?? [], now, graceMs);
  await col.updateOne({ _id: ID }, { $set: { starts } }, { upsert: true });
  return starts;
}
