// Timeline retention on a real embedded store: entries older than TIMELINE_RETENTION_DAYS go,
// newer ones stay, and 0 keeps them all; each pair is also kept to TIMELINE_MAX_PER_PAIR entries
// as the engine writes them.
import { describe, expect, it } from 'vitest';
import { TimelineWriter } from '../../src/engine/timeline.js';
import type { ServiceContext } from '../../src/services/context.js';
import { sweepExpired } from '../../src/services/retention.js';
import { TIMELINE_COLLECTION } from '../../src/services/timeline.js';
import type { TimelineDoc } from '../../src/store/documents.js';
import { timeKey } from '../../src/store/ids.js';
import { storePerTest } from '../delivery/helpers.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 21, 12);

let ctx: ServiceContext;
storePerTest((c) => {
  ctx = c;
});

/** An entry with an id as the engine makes them: its time first, then what tells it apart. */
function entry(name: string, at: number, pair = { user_id: 'U', trigger_id: 'T', place_id: 'P' }): TimelineDoc {
  return {
    _id: `${timeKey(at)}-${name}`, app_id: 'A', ...pair, layer_id: 'L', kind: 'point', event: null, from: 'outside', to: 'outside', gate: null, note: 'band',
    point: { date: at, latitude: 0, longitude: 0, horizontal_accuracy: 5 }, zone: 'band', distance_m: 110, firing_id: null, at,
  };
}

const col = () => ctx.store.collection<TimelineDoc>(TIMELINE_COLLECTION);

describe('timeline retention', () => {
  it('removes entries older than TIMELINE_RETENTION_DAYS and keeps the rest', async () => {
    ctx.config.timelineRetentionDays = 30;
    await col().insertMany([entry('old', NOW - 31 * DAY), entry('older', NOW - 400 * DAY), entry('recent', NOW - 29 * DAY)]);
    expect((await sweepExpired(ctx, NOW)).timeline).toBe(2);
    expect((await col().find({}).toArray()).map((d) => d._id)).toEqual([`${timeKey(NOW - 29 * DAY)}-recent`]);
  });

  it('keeps every entry when TIMELINE_RETENTION_DAYS is 0', async () => {
    ctx.config.timelineRetentionDays = 0;
    await col().insertMany([entry('old', NOW - 3000 * DAY)]);
    expect((await sweepExpired(ctx, NOW)).timeline).toBe(0);
    expect(await col().countDocuments({})).toBe(1);
  });

  it('keeps each pair to its cap as entries are written: the newest stay, other pairs are untouched', async () => {
    const writer = new TimelineWriter(ctx.store, 10);
    const other = entry('other', NOW, { user_id: 'U', trigger_id: 'T', place_id: 'Q' });
    await writer.write([other]);
    for (let i = 0; i < 40; i++) await writer.write([entry(`e${String(i).padStart(2, '0')}`, NOW + i * 1000)]);
    await writer.idle();
    const kept = (await col().find({ place_id: 'P' }, { sort: { at: 1 } }).toArray()).map((d) => d._id.split('-')[1]);
    // Never more than 1.25 × the cap, and the newest entries are the ones kept.
    expect(kept.length).toBeGreaterThanOrEqual(10);
    expect(kept.length).toBeLessThanOrEqual(12);
    expect(kept.at(-1)).toBe('e39');
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, k) => `e${String(40 - kept.length + k).padStart(2, '0')}`));
    expect(await col().countDocuments({ place_id: 'Q' })).toBe(1);
  });
});
