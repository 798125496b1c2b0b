// The kept points a replay of a user without location history runs on (services/replay-source.ts),
// on a real embedded store: the distinct points behind the timeline's entries, oldest first, with
// neither a clock tick nor a stale point; and, when there are more than a replay takes, the newest.
import { describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../src/services/context.js';
import { storedTrack } from '../../src/services/replay-source.js';
import { MAX_REPLAY_POINTS } from '../../src/schemas/timeline.js';
import type { TimelineRow, UserDoc } from '../../src/store/documents.js';
import { storePerTest } from '../delivery/helpers.js';

const T0 = Date.UTC(2026, 10, 21, 12);
const USER = { _id: 'U' } as UserDoc;

let ctx: ServiceContext;
storePerTest((c) => {
  ctx = c;
});

/** An entry of pair (U, trigger, P) with the point `i` (its own position and time) behind it. */
function entry(i: number, fields: Partial<TimelineRow> = {}): TimelineRow {
  const at = T0 + i * 1000;
  return {
    app_id: 'A', user_id: 'U', trigger_id: 'T', place_id: 'P', layer_id: 'L', kind: 'point', event: null, from: 'outside', to: 'outside',
    gate: null, note: 'band', point_date: at, latitude: i / 100_000, longitude: 0, horizontal_accuracy: 5, zone: 'band', distance_m: 110,
    firing_id: null, at, received_at: at, ...fields,
  };
}

describe('a replay\'s kept points without location history', () => {
  it('are the distinct points behind the entries, oldest first, without ticks or stale points', async () => {
    await ctx.store.timeline.add([
      entry(1, { kind: 'transition', note: null, to: 'inside', zone: 'in' }),
      // The same point behind another pair's entry: one point.
      entry(1, { trigger_id: 'T2', kind: 'fired', note: null, to: 'inside', zone: 'in', firing_id: 'F' }),
      entry(3),
      // A dwell deadline reached by the clock has no point.
      entry(4, { kind: 'fired', event: 'dwell', note: null, point_date: null, latitude: null, longitude: null, horizontal_accuracy: null, zone: null, distance_m: null }),
      // A point older than the last applied one moved nothing live.
      entry(2, { note: 'stale_point' }),
    ]);
    const { rows, source } = await storedTrack(ctx, 'A', USER, 'history', {}, 'UTC');
    expect(rows).toEqual([
      { at: T0 + 1000, lat: 1 / 100_000, lon: 0, acc: 5 },
      { at: T0 + 3000, lat: 3 / 100_000, lon: 0, acc: 5 },
    ]);
    expect(source).toMatchObject({ kind: 'timeline', history_kept: false });
    expect(source.partial).toBeUndefined();
    // A range narrows them.
    const later = await storedTrack(ctx, 'A', USER, 'history', { after: new Date(T0 + 2000).toISOString() }, 'UTC');
    expect(later.rows.map((r) => r.at)).toEqual([T0 + 3000]);
  });

  it('beyond what one replay takes: the newest ones, and the answer says so', async () => {
    const extra = 5;
    await ctx.store.timeline.add(Array.from({ length: MAX_REPLAY_POINTS + extra }, (_, i) => entry(i)));
    const { rows, source } = await storedTrack(ctx, 'A', USER, 'history', {}, 'UTC');
    expect(rows).toHaveLength(MAX_REPLAY_POINTS);
    expect(rows[0]!.at).toBe(T0 + extra * 1000);
    expect(rows.at(-1)!.at).toBe(T0 + (MAX_REPLAY_POINTS + extra - 1) * 1000);
    expect(source.partial).toBe(true);
    expect(source.note).toMatch(/narrow it with after and before/);
  });
});
