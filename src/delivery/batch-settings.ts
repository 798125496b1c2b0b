// Each application's callback_batch_max as the delivery loop goes by it: read from the documents
// at most every couple of seconds per application, so a change made through the admin API applies
// within that time without a read per callback.
import { LRUCache } from 'lru-cache';
import type { DocCache } from './doc-cache.js';

/** Rows in one batch at most, whatever an application's document says. */
const MAX_BATCH = 100;
/** How long the loop goes by an application's callback_batch_max before reading it again (ms). */
const TTL_MS = 2_000;

export class BatchSettings {
  private readonly maxes = new LRUCache<string, number>({ max: 10_000, ttl: TTL_MS, ttlAutopurge: false });

  constructor(private readonly docs: DocCache) {}

  /** The application's callback_batch_max when read recently; else undefined (read() reads it). */
  known(appId: string): number | undefined {
    return this.maxes.get(appId);
  }

  /** The application's callback_batch_max (1 when it is gone: its rows go alone). */
  async read(appId: string): Promise<number> {
    const known = this.known(appId);
    if (known !== undefined) return known;
    const app = await this.docs.app(appId);
    const max = Math.max(1, Math.min(MAX_BATCH, Math.floor(app?.callback_batch_max ?? 1)));
    this.maxes.set(appId, max);
    return max;
  }
}
