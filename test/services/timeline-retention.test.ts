// Timeline retention on a real embedded store: entries older than TIMELINE_RETENTION_DAYS go,
// newer ones stay, and 0 keeps them all; each pair is also kept to TIMELINE_MAX_PER_PAIR entries
// as the engine writes them.
import { describe, expect, it } from 'vitest';
import { TimelineWriter } from '../../src/engine/timeline.js';
import type { ServiceContext } from '../../src/services/context.js';
import { sweepExpired } from '../../src/services/retention.js';
import type { TimelineRow } from '../../src/store/documents.js';
import { storePerTest } from '../delivery/helpers.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 21, 12);

let ctx: ServiceContext;
storePerTest((c) => {
  ctx = c;
});

/** A band entry at `at`, told apart by its distance. */
function entry(distance: number, at: number, pair = { user_id: 'U', trigger_id: 'T', place_id: 'P' }): TimelineRow {
  return {
    app_id: 'A', ...pair, layer_id: 'L', kind: 'point', event: null, from: 'outside', to: 'outside', gate: null, note: 'band',
    point_date: at, latitude: 0, longitude: 0, horizontal_accuracy: 5, zone: 'band', distance_m: distance, firing_id: null, at, received_at: at,
  };
}

const entries = async (filter: { place_id?: string } = {}) =>
  (await ctx.store.timeline.ofUser('A', 'U', filter, { offset: 0, limit: 1000 })).entries.map((e) => e.distance_m).reverse();

describe('timeline retention', () => {
  it('removes entries older than TIMELINE_RETENTION_DAYS and keeps the rest', async () => {
    ctx.config.timelineRetentionDays = 30;
    await ctx.store.timeline.add([entry(1, NOW - 400 * DAY), entry(2, NOW - 31 * DAY), entry(3, NOW - 29 * DAY)]);
    expect((await sweepExpired(ctx, NOW)).timeline).toBe(2);
    expect(await entries()).toEqual([3]);
  });

  it('keeps every entry when TIMELINE_RETENTION_DAYS is 0', async () => {
    ctx.config.timelineRetentionDays = 0;
    await ctx.store.timeline.add([entry(1, NOW - 3000 * DAY)]);
    expect((await sweepExpired(ctx, NOW)).timeline).toBe(0);
    expect(await entries()).toEqual([1]);
  });

  it('keeps each pair to its cap as entries are written: the newest stay, other pairs are untouched', async () => {
    const writer = new TimelineWriter(ctx.store, 10);
    await writer.write([entry(1000, NOW, { user_id: 'U', trigger_id: 'T', place_id: 'Q' })]);
    for (let i = 0; i < 40; i++) await writer.write([entry(i, NOW + i * 1000)]);
    await writer.idle();
    const kept = await entries({ place_id: 'P' });
    // Never more than 1.25 × the cap, and the newest entries are the ones kept.
    expect(kept.length).toBeGreaterThanOrEqual(10);
    expect(kept.length).toBeLessThanOrEqual(12);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, k) => 40 - kept.length + k));
    expect(await entries({ place_id: 'Q' })).toEqual([1000]);
  });
});
